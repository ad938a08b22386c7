// Your-turn alerts in the page: when the decision passes to this player after the opponent's
// (never on each small step of their own), the tab's title and icon change, a short sound plays
// if the player turned sound on, and the browser shows a notification if the player asked for
// them ("Notify me") and the tab is not in front. Title and icon return when the player acts or
// comes back to the tab. Sound and notifications are remembered in localStorage; the permission
// for notifications is asked only when the player presses "Notify me" (a user gesture).

import { byId, h } from './dom.js';

const SOUND_KEY = 'siege.sound';
const NOTIFY_KEY = 'siege.notify';

/** The page's own icon: the red hexagon. */
const ICON = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Cpolygon points='31,16 23.5,29 8.5,29 1,16 8.5,3 23.5,3' fill='%23b03a35'/%3E%3Ctext x='16' y='22' font-size='16' text-anchor='middle' fill='white' font-family='Georgia'%3ES%3C/text%3E%3C/svg%3E";

/** The same hexagon with a gold dot: it is your move. */
export const ALERT_ICON = `data:image/svg+xml,${encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'>"
  + "<polygon points='31,16 23.5,29 8.5,29 1,16 8.5,3 23.5,3' fill='#b03a35'/>"
  + "<text x='13' y='22' font-size='16' text-anchor='middle' fill='white' font-family='Georgia'>S</text>"
  + "<circle cx='24' cy='9' r='7.5' fill='#f2c230' stroke='#2b231c' stroke-width='2'/></svg>")}`;

function stored(key) {
  try { return localStorage.getItem(key) === 'on'; } catch { return false; }
}

function store(key, on) {
  try { localStorage.setItem(key, on ? 'on' : 'off'); } catch { /* private mode: not remembered */ }
}

function iconLink() {
  let link = document.querySelector('link[rel="icon"]');
  if (!link) {
    link = document.createElement('link');
    link.rel = 'icon';
    document.head.append(link);
  }
  return link;
}

export class TurnAlert {
  /** `gameName()`: the game's name as now known (the title says it). */
  constructor(gameName) {
    this.gameName = gameName;
    this.baseTitle = document.title;
    this.icon = iconLink();
    this.baseIcon = this.icon.getAttribute('href') ?? ICON;
    this.lastToAct = undefined;
    this.lastSeq = null;
    this.you = null;
    this.on = false;
    this.sound = stored(SOUND_KEY);
    this.notify = stored(NOTIFY_KEY) && typeof Notification !== 'undefined' && Notification.permission === 'granted';
    this.audio = null;
    this.onFocus = () => this.clear();
    this.onVisible = () => { if (document.visibilityState === 'visible' && document.hasFocus()) this.clear(); };
    window.addEventListener('focus', this.onFocus);
    document.addEventListener('visibilitychange', this.onVisible);
    this.controls = byId('alerts');
    this.drawControls();
  }

  /** A state frame arrived: alert if the decision has just passed from the opponent to us. */
  update(f) {
    const you = f.you;
    this.you = you;
    if (this.controls) this.controls.hidden = you === 'spectator';
    const toAct = f.view.result ? null : (f.view.to_act ?? null);
    const mine = you !== 'spectator' && toAct === you;
    // Handed over: the last state we saw had the opponent to act, this one has us. The first
    // state of a page (a reload, a reconnect) is not a hand-over: nothing was seen before.
    const handedOver = mine && this.lastToAct !== undefined && this.lastToAct !== null
      && this.lastToAct !== you && f.seq !== this.lastSeq;
    this.lastToAct = toAct;
    this.lastSeq = f.seq;
    if (!mine) { this.clear(); return; }
    if (handedOver) this.raise(f);
  }

  /** The player acted: title and icon return. */
  acted() { this.clear(); }

  raise(f) {
    this.on = true;
    const name = this.gameName() || this.baseTitle;
    document.title = `● Your move — ${name}`;
    this.icon.setAttribute('href', ALERT_ICON);
    document.body.dataset.turnAlert = 'on';
    if (this.sound) this.beep();
    const away = document.visibilityState !== 'visible' || !document.hasFocus();
    if (this.notify && away && typeof Notification !== 'undefined' && Notification.permission === 'granted') {
      try {
        const n = new Notification('Your move — Siege at Peking', {
          body: `${name}: it is your move (after move #${f.seq}).`,
          tag: `siege-turn-${f.seq}`,
          icon: ALERT_ICON,
        });
        n.onclick = () => { window.focus(); n.close(); };
      } catch { /* a browser that only notifies from a service worker: the title still says it */ }
    }
  }

  clear() {
    if (!this.on) return;
    this.on = false;
    document.title = this.baseTitle;
    this.icon.setAttribute('href', this.baseIcon);
    delete document.body.dataset.turnAlert;
  }

  /** Two short rising tones, made with WebAudio (no sound file). */
  beep() {
    try {
      const Ctx = window.AudioContext ?? window.webkitAudioContext;
      if (!Ctx) return;
      this.audio ??= new Ctx();
      const ctx = this.audio;
      if (ctx.state === 'suspended') ctx.resume().catch(() => {});
      const t = ctx.currentTime + 0.02;
      [[660, 0], [880, 0.16]].forEach(([freq, at]) => {
        const osc = ctx.createOscillator();
        const gain = ctx.createGain();
        osc.type = 'sine';
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.0001, t + at);
        gain.gain.exponentialRampToValueAtTime(0.25, t + at + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, t + at + 0.14);
        osc.connect(gain).connect(ctx.destination);
        osc.start(t + at);
        osc.stop(t + at + 0.15);
      });
      document.body.dataset.beeps = String(Number(document.body.dataset.beeps ?? 0) + 1);
    } catch { /* no audio: nothing else depends on it */ }
  }

  drawControls() {
    const el = this.controls;
    if (!el) return;
    const supported = typeof Notification !== 'undefined';
    const sound = h('button', {
      type: 'button', id: 'toggle-sound', class: 'small quiet', 'aria-pressed': String(this.sound),
      title: 'Play a short sound when it becomes your move',
      onclick: () => {
        this.sound = !this.sound;
        store(SOUND_KEY, this.sound);
        sound.setAttribute('aria-pressed', String(this.sound));
        sound.textContent = this.sound ? '♪ Sound on' : '♪ Sound off';
        // Made (or resumed) inside the click: browsers let audio start only after a gesture.
        if (this.sound) this.beep();
      },
      text: this.sound ? '♪ Sound on' : '♪ Sound off',
    });
    const notify = h('button', {
      type: 'button', id: 'toggle-notify', class: 'small quiet', 'aria-pressed': String(this.notify),
      title: supported ? 'Show a browser notification when it becomes your move and this tab is not in front' : 'This browser has no notifications',
      disabled: !supported,
      onclick: async () => {
        if (this.notify) {
          this.notify = false;
        } else {
          // Asked here only, on the player's click.
          const answer = Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
          this.notify = answer === 'granted';
          if (!this.notify) hint.textContent = 'Notifications are blocked for this site in the browser.';
        }
        store(NOTIFY_KEY, this.notify);
        notify.setAttribute('aria-pressed', String(this.notify));
        notify.textContent = this.notify ? 'Notify me: on' : 'Notify me';
      },
      text: this.notify ? 'Notify me: on' : 'Notify me',
    });
    const hint = h('span', { class: 'hint', id: 'alerts-hint' });
    el.replaceChildren(sound, notify, hint);
  }

  close() {
    this.clear();
    window.removeEventListener('focus', this.onFocus);
    document.removeEventListener('visibilitychange', this.onVisible);
    if (this.controls) { this.controls.replaceChildren(); this.controls.hidden = true; }
    this.audio?.close?.().catch?.(() => {});
  }
}
