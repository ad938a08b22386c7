// The lobby's account card: sign up, log in, log out, change the password (docs/protocol.md,
// "Accounts"). The session is an HttpOnly cookie the page never sees; a password is sent once,
// in a POST body, and never kept.

import { h, byId, clear, toast } from './dom.js';
import { api } from './api.js';

/** Fill the account card; `onChange(account)` runs after signing in or out. */
export async function showAccount(onChange) {
  const card = byId('account-card');
  let me = null;
  try { me = await api.me(); } catch { me = null; }
  clear(card);
  if (me) {
    card.dataset.signedIn = me.name;
    const change = h('form', { class: 'password-form', id: 'password-form', hidden: true },
      h('label', { for: 'old-password', text: 'Current password' }),
      h('input', { id: 'old-password', type: 'password', autocomplete: 'current-password', required: true }),
      h('label', { for: 'new-password', text: 'New password (8 or more characters)' }),
      h('input', { id: 'new-password', type: 'password', autocomplete: 'new-password', minlength: 8, required: true }),
      h('button', { type: 'submit', class: 'small', text: 'Change password' }));
    change.addEventListener('submit', async (e) => {
      e.preventDefault();
      try {
        await api.changePassword(byId('old-password').value, byId('new-password').value);
        toast('Password changed; your other sessions are signed out.');
        change.hidden = true;
      } catch (err) { toast(err.message, 'error'); }
    });
    const notices = h('form', { class: 'password-form', id: 'notify-form', hidden: true },
      h('label', { for: 'notify-email', text: 'E-mail me when it is my move (empty: never)' }),
      h('input', { id: 'notify-email', type: 'email', autocomplete: 'email', maxlength: 254 }),
      h('label', { for: 'notify-webhook', text: 'Or POST to this webhook URL (empty: never)' }),
      h('input', { id: 'notify-webhook', type: 'url', maxlength: 2000, placeholder: 'https://…' }),
      h('p', { class: 'hint', id: 'notify-hint', text: 'One message each time the move passes to you, however many steps your opponent took.' }),
      h('button', { type: 'submit', class: 'small', id: 'notify-save', text: 'Save' }));
    notices.addEventListener('submit', async (e) => {
      e.preventDefault();
      try {
        await api.setNotifications(byId('notify-email').value.trim(), byId('notify-webhook').value.trim());
        toast('Your-turn messages saved.');
        notices.hidden = true;
      } catch (err) { toast(err.message, 'error'); }
    });
    // The stored settings are read before the form is shown: shown first, what the player
    // had begun to type was overwritten when they arrived.
    const openNotices = async () => {
      if (!notices.hidden) { notices.hidden = true; return; }
      try {
        const n = await api.notifications();
        byId('notify-email').value = n.email ?? '';
        byId('notify-webhook').value = n.webhook ?? '';
        if (!n.email_available) byId('notify-hint').textContent = 'This server sends no e-mail (no SMTP configured): a webhook still works.';
        notices.hidden = false;
      } catch (err) { toast(err.message, 'error'); }
    };
    card.append(h('h2', { text: 'Account' }),
      h('p', {}, 'Signed in as ', h('b', { id: 'account-name', text: me.name }), '. Games you create or join are kept with your account.'),
      h('div', { class: 'button-row' },
        h('button', { type: 'button', class: 'small', id: 'log-out', text: 'Log out', onclick: async () => { await api.logOut().catch(() => {}); onChange?.(null); showAccount(onChange); } }),
        h('button', { type: 'button', class: 'small quiet', text: 'Change password…', onclick: () => { change.hidden = !change.hidden; } }),
        h('button', { type: 'button', class: 'small quiet', id: 'notify-settings', text: 'Your-turn messages…', onclick: openNotices })),
      change, notices);
    return me;
  }
  delete card.dataset.signedIn;
  const form = h('form', { id: 'account-form' },
    h('label', { for: 'account-user', text: 'User name' }),
    h('input', { id: 'account-user', autocomplete: 'username', maxlength: 24, required: true }),
    h('label', { for: 'account-password', text: 'Password (8 or more characters)' }),
    h('input', { id: 'account-password', type: 'password', autocomplete: 'current-password', required: true }),
    h('div', { class: 'button-row' },
      h('button', { type: 'submit', class: 'primary small', id: 'log-in', value: 'login', text: 'Log in' }),
      h('button', { type: 'submit', class: 'small', id: 'sign-up', value: 'signup', text: 'Sign up' })));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const which = e.submitter?.value ?? 'login';
    const name = byId('account-user').value.trim();
    const password = byId('account-password').value;
    try {
      const who = which === 'signup' ? await api.signUp(name, password) : await api.logIn(name, password);
      toast(`Signed in as ${who.name}.`);
      onChange?.(who);
      showAccount(onChange);
    } catch (err) { toast(err.message, 'error'); }
  });
  card.append(h('h2', { text: 'Account (optional)' }),
    h('p', { class: 'hint', text: 'Play as a guest with links, or sign in to keep your games with a name: your seats then open from any browser where you are signed in.' }),
    form);
  return null;
}
