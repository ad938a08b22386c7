// Pan and zoom of the map: mouse drag, wheel, touch drag and pinch, and buttons. It moves the
// SVG's viewBox, so the board stays crisp at any zoom and a click converts to map units through
// the SVG's own screen matrix. A press that does not move is a tap, handed to `onTap`.

const TAP_SLOP = 6; // pixels a finger or mouse may wander and still be a tap

export class Viewport {
  constructor(svgEl, width, height, onTap) {
    this.svg = svgEl;
    this.W = width;
    this.H = height;
    this.onTap = onTap;
    this.vb = { x: 0, y: 0, w: width, h: height };
    this.pointers = new Map(); // pointerId -> {x, y} in client pixels
    this.moved = false;
    svgEl.addEventListener('pointerdown', (e) => this.down(e));
    svgEl.addEventListener('pointermove', (e) => this.move(e));
    svgEl.addEventListener('pointerup', (e) => this.up(e));
    svgEl.addEventListener('pointercancel', (e) => this.pointers.delete(e.pointerId));
    svgEl.addEventListener('wheel', (e) => this.wheel(e), { passive: false });
    this.apply();
  }

  /** Map units under a client point. */
  toMap(clientX, clientY) {
    const m = this.svg.getScreenCTM();
    if (!m) return [0, 0];
    const p = new DOMPoint(clientX, clientY).matrixTransform(m.inverse());
    return [p.x, p.y];
  }

  /** Map units per screen pixel at the current zoom. */
  unitsPerPixel() {
    const m = this.svg.getScreenCTM();
    return m ? 1 / m.a : 1;
  }

  apply() {
    const { x, y, w, h } = this.vb;
    this.svg.setAttribute('viewBox', `${x.toFixed(1)} ${y.toFixed(1)} ${w.toFixed(1)} ${h.toFixed(1)}`);
    // Hex numbers only where they can be read: 7.4 map units tall, so from about 0.6 px a unit.
    this.svg.classList.toggle('zoomed-out', 1 / this.unitsPerPixel() < 0.6);
  }

  /** Zoom by `factor` (>1 = closer) keeping the map point (px, py) where it is on screen. */
  zoomAt(factor, px, py) {
    const { x, y, w, h } = this.vb;
    const nw = Math.min(this.W * 1.3, Math.max(this.W / 14, w / factor));
    const k = nw / w;
    this.vb = { x: px - (px - x) * k, y: py - (py - y) * k, w: nw, h: h * k };
    this.clampAndApply();
  }

  zoom(factor) {
    const { x, y, w, h } = this.vb;
    this.zoomAt(factor, x + w / 2, y + h / 2);
  }

  /** Whether the map point (px, py) is on screen, a little way in from the edges. */
  isVisible(px, py) {
    const box = this.svg.getBoundingClientRect();
    const m = this.svg.getScreenCTM();
    if (!m) return false;
    const p = new DOMPoint(px, py).matrixTransform(m);
    return p.x > box.left + 30 && p.x < box.right - 30 && p.y > box.top + 30 && p.y < box.bottom - 30;
  }

  /** Pan as little as needed for the map point (px, py) to sit on screen, `margin` pixels in
   *  from the edges (less on a small map), keeping the zoom. */
  reveal(px, py, margin = 90) {
    const box = this.svg.getBoundingClientRect();
    const m = this.svg.getScreenCTM();
    if (!m) return;
    const p = new DOMPoint(px, py).matrixTransform(m);
    const mx = Math.min(margin, box.width / 4), my = Math.min(margin, box.height / 4);
    const dx = p.x < box.left + mx ? box.left + mx - p.x : p.x > box.right - mx ? box.right - mx - p.x : 0;
    const dy = p.y < box.top + my ? box.top + my - p.y : p.y > box.bottom - my ? box.bottom - my - p.y : 0;
    if (dx || dy) this.panBy(dx, dy);
  }

  /** The screen distance from the middle of the map's box to the map point (px, py). */
  distanceFromMiddle(px, py) {
    const box = this.svg.getBoundingClientRect();
    const m = this.svg.getScreenCTM();
    if (!m) return Infinity;
    const p = new DOMPoint(px, py).matrixTransform(m);
    return Math.hypot(p.x - (box.left + box.width / 2), p.y - (box.top + box.height / 2));
  }

  /** Show the whole board. */
  fit() {
    this.vb = { x: 0, y: 0, w: this.W, h: this.H };
    this.apply();
  }

  /** Centre the view on map point (px, py) at `scale` screen pixels per map unit. */
  focus(px, py, scale) {
    const box = this.svg.getBoundingClientRect();
    const s = scale ?? 1 / this.unitsPerPixel();
    const w = box.width / s, h = box.height / s;
    this.vb = { x: px - w / 2, y: py - h / 2, w, h };
    this.clampAndApply();
  }

  /** Keep the board in view: centred when it is smaller than the view, else with no more than
   *  a sliver of table showing past its edges. */
  clampAndApply() {
    const v = this.vb;
    const clamp = (pos, size, total) => (size >= total
      ? (total - size) / 2
      : Math.min(Math.max(pos, -size * 0.12), total - size * 0.88));
    v.x = clamp(v.x, v.w, this.W);
    v.y = clamp(v.y, v.h, this.H);
    this.apply();
  }

  panBy(dxPixels, dyPixels) {
    const u = this.unitsPerPixel();
    this.vb.x -= dxPixels * u;
    this.vb.y -= dyPixels * u;
    this.clampAndApply();
  }

  down(e) {
    if (e.button !== undefined && e.button > 0) return;
    // Capture keeps a drag going when the pointer leaves the map; synthetic pointers cannot be
    // captured, and that must not stop them.
    try { this.svg.setPointerCapture(e.pointerId); } catch { /* not capturable */ }
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, x0: e.clientX, y0: e.clientY });
    if (this.pointers.size === 1) this.moved = false;
    if (this.pointers.size === 2) { this.moved = true; this.pinch = this.pinchState(); }
  }

  pinchState() {
    const [a, b] = [...this.pointers.values()];
    return { d: Math.hypot(a.x - b.x, a.y - b.y), mx: (a.x + b.x) / 2, my: (a.y + b.y) / 2 };
  }

  move(e) {
    const p = this.pointers.get(e.pointerId);
    if (!p) return;
    const dx = e.clientX - p.x, dy = e.clientY - p.y;
    p.x = e.clientX;
    p.y = e.clientY;
    if (this.pointers.size === 1) {
      if (!this.moved && Math.hypot(p.x - p.x0, p.y - p.y0) < TAP_SLOP) return;
      if (!this.moved) { this.moved = true; this.svg.classList.add('panning'); }
      this.panBy(dx, dy);
    } else if (this.pointers.size === 2 && this.pinch) {
      const now = this.pinchState();
      const [mx, my] = this.toMap(now.mx, now.my);
      if (this.pinch.d > 0 && now.d > 0) this.zoomAt(now.d / this.pinch.d, mx, my);
      this.panBy(now.mx - this.pinch.mx, now.my - this.pinch.my);
      this.pinch = now;
    }
  }

  up(e) {
    const p = this.pointers.get(e.pointerId);
    this.pointers.delete(e.pointerId);
    if (this.pointers.size < 2) this.pinch = null;
    if (!p) return;
    if (this.pointers.size === 0) {
      this.svg.classList.remove('panning');
      if (!this.moved) {
        const [x, y] = this.toMap(e.clientX, e.clientY);
        this.onTap(x, y, e);
      }
    }
  }

  wheel(e) {
    e.preventDefault();
    const [x, y] = this.toMap(e.clientX, e.clientY);
    // Trackpads send many small deltas, mouse wheels few large ones; both feel right this way.
    const factor = Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0018));
    this.zoomAt(factor, x, y);
  }
}

/** The zoom buttons and the hex-number switch over the map (`index.html`'s map tools). Plain
 *  `onclick` assignments, so the next screen's map replaces this one's handlers. */
export function wireMapButtons(viewport) {
  const byId = (id) => document.getElementById(id);
  byId('zoom-in').onclick = () => viewport.zoom(1.4);
  byId('zoom-out').onclick = () => viewport.zoom(1 / 1.4);
  byId('zoom-fit').onclick = () => viewport.fit();
  const numbers = byId('toggle-numbers');
  numbers.onclick = () => {
    const on = byId('map').classList.toggle('no-numbers') === false;
    numbers.setAttribute('aria-pressed', String(on));
  };
}
