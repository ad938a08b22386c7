// The chat beside the log (docs/protocol.md, "Chat"). Live: the players write in the table chat,
// spectators in the spectator chat; each audience reads only its own while the game is on, and
// a player may hide the spectator chat for good (kept for the seat by the server). Replay: both
// chats of a finished game, read only. A message is always shown as text (textContent, never
// markup): whatever a message contains, it is words on the page and nothing runs.

import { h, byId, clear } from './dom.js';
import { SIDE_NAME } from './panels.js';

const FROM = { allied: SIDE_NAME.allied, chinese: SIDE_NAME.chinese, spectator: 'Spectator' };
/** The longest message the server takes by default; the server's own limit is what counts. */
const MAX_CHARS = 500;

export class ChatPanel {
  /** `send(text)` and `mute(muted)` reach the server; null in a replay (read only). */
  constructor({ send = null, mute = null } = {}) {
    this.send = send;
    this.setMute = mute;
    this.seen = new Set();
    this.unread = 0;
    this.you = null;
    this.logTab = byId('tab-log');
    this.chatTab = byId('tab-chat');
    this.badge = byId('chat-unread');
    this.box = byId('chat');
    this.logEl = byId('log');
    this.list = h('ol', { class: 'chat-list', id: 'chat-list', 'aria-live': 'polite' });
    this.note = h('p', { class: 'hint chat-note', id: 'chat-note' });
    this.input = h('input', { id: 'chat-input', maxlength: String(MAX_CHARS), autocomplete: 'off', placeholder: 'Say something…', 'aria-label': 'Chat message' });
    this.form = h('form', { class: 'chat-form', id: 'chat-form', onsubmit: (e) => { e.preventDefault(); this.submit(); } },
      this.input, h('button', { type: 'submit', class: 'small', id: 'chat-send', text: 'Send' }));
    this.muteBox = h('input', { type: 'checkbox', id: 'chat-mute', onchange: () => this.setMute?.(this.muteBox.checked) });
    this.muteRow = h('label', { class: 'hint chat-mute', hidden: true }, this.muteBox, ' Hide the spectators’ chat (you see it once the game ends)');
    clear(this.box).append(this.note, this.list, this.form, this.muteRow);
    this.form.hidden = !send;
    this.onLog = () => this.show(false);
    this.onChat = () => this.show(true);
    this.logTab.addEventListener('click', this.onLog);
    this.chatTab.addEventListener('click', this.onChat);
    this.show(false);
    this.paintBadge();
  }

  /** Who this page is (`allied`, `chinese`, `spectator`), from its first state. */
  setYou(you) {
    if (this.you === you) return;
    this.you = you;
    const player = you === 'allied' || you === 'chinese';
    this.note.textContent = player
      ? 'Table chat: you and your opponent. Spectators cannot read it until the game ends.'
      : 'Spectators’ chat: the players cannot read it until the game ends.';
    this.muteRow.hidden = !player || !this.setMute;
  }

  /** Both chats of a finished game, or why there are none to show. */
  replay(messages, why = null) {
    this.note.textContent = why ?? (messages.length ? 'The table chat and the spectators’ chat of this game.' : 'Nobody chatted in this game.');
    for (const m of messages) this.add(m, false);
  }

  /** A `chat_history` frame: what this reader is shown so far. */
  history(f) {
    this.muted(f);
    for (const m of f.messages ?? []) this.add(m, false);
  }

  /** The mute as the server stored it; `data-stored` says so to scripts (and tests) that must
   *  know the choice is kept before they reload. */
  muted(f) {
    this.muteBox.checked = !!f.muted;
    this.muteBox.dataset.stored = String(!!f.muted);
  }

  /** One message; `fresh` ones count as unread while the chat is not shown. */
  add(m, fresh = true) {
    if (this.seen.has(m.id)) return;
    this.seen.add(m.id);
    const mine = m.from === this.you && m.from !== 'spectator';
    const li = h('li', { class: `chat-msg from-${m.from} channel-${m.channel}${mine ? ' mine' : ''}`, 'data-id': String(m.id) },
      h('span', { class: 'chat-from', text: FROM[m.from] ?? m.from }),
      m.channel === 'spectators' && this.you !== 'spectator' ? h('span', { class: 'chat-channel', text: ' (spectators)' }) : null,
      ': ',
      h('span', { class: 'chat-text', text: String(m.text ?? '') }),
      h('time', { class: 'chat-at', datetime: m.at, title: m.at, text: ` ${(m.at ?? '').slice(11, 16)}` }));
    this.list.append(li);
    li.scrollIntoView?.({ block: 'nearest' });
    if (fresh && !mine && this.box.hidden) {
      this.unread += 1;
      this.paintBadge();
    }
  }

  submit() {
    const text = this.input.value;
    if (!text.trim() || !this.send) return;
    if (this.send(text)) this.input.value = '';
  }

  show(chat) {
    this.box.hidden = !chat;
    this.logEl.hidden = chat;
    this.chatTab.setAttribute('aria-selected', String(chat));
    this.logTab.setAttribute('aria-selected', String(!chat));
    if (chat) {
      this.unread = 0;
      this.paintBadge();
      this.list.lastElementChild?.scrollIntoView?.({ block: 'nearest' });
    }
  }

  paintBadge() {
    this.badge.hidden = this.unread === 0;
    this.badge.textContent = String(this.unread);
    this.chatTab.dataset.unread = String(this.unread);
    this.chatTab.title = this.unread ? `${this.unread} unread` : 'Chat';
  }

  close() {
    this.logTab.removeEventListener('click', this.onLog);
    this.chatTab.removeEventListener('click', this.onChat);
    clear(this.box);
    this.unread = 0;
    this.paintBadge();
    this.show(false);
  }
}
