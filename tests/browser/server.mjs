// Starts the real siege binary on port 0 with a temporary database and the page's web dir, and
// reads the address it prints ("listening on http://HOST:PORT"). It can be killed outright and
// started again on the same port and database, to check that clients resume.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { here } from './lib.mjs';

const repo = path.resolve(here, '../..');

export class SiegeServer {
  constructor({ bin = process.env.SIEGE_BIN ?? path.join(repo, 'target/release/siege'), webDir = process.env.SIEGE_WEB_DIR ?? path.join(repo, 'web') } = {}) {
    this.bin = path.resolve(bin);
    this.webDir = path.resolve(webDir);
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'siege-browser-'));
    this.database = `sqlite://${path.join(this.dir, 'siege.db')}`;
    this.output = [];
  }

  async start(addr = '127.0.0.1:0') {
    if (!fs.existsSync(this.bin)) throw new Error(`no server binary at ${this.bin}: build it (cargo build --release) or set SIEGE_BIN`);
    // Every page of the suite comes from 127.0.0.1, so the per-client rates and the open-games
    // cap would be shared by the whole run and hit, or not, by how fast the machine plays it
    // (a 429 on creating a game, seen once): they are off here, and tested in
    // server/tests/abuse.rs and tests/tests/accounts.rs instead.
    const unlimited = ['--create-rate', '0', '--join-rate', '0', '--signup-rate', '0', '--login-rate', '0', '--max-open-games', '0'];
    const child = spawn(this.bin, ['serve', '--addr', addr, '--database', this.database, '--web-dir', this.webDir, ...unlimited], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? 'warn' },
    });
    this.child = child;
    const url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the server did not say where it listens:\n${this.output.join('')}`)), 30_000);
      const read = (chunk) => {
        const text = String(chunk);
        this.output.push(text);
        const m = text.match(/listening on (http:\/\/[^\s]+)/);
        if (m) { clearTimeout(timer); resolve(m[1].replace(/\/$/, '')); }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', (c) => this.output.push(String(c)));
      child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`the server exited (${code}):\n${this.output.join('')}`)); });
    });
    this.url = url;
    this.addr = new URL(url).host;
    return url;
  }

  /** Kill -9: no graceful shutdown, as a crash would. */
  async kill() {
    const child = this.child;
    // A killed child has a signalCode and no exitCode: either means it is gone.
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  }

  /** Start again on the same address and database. */
  async restart() {
    await this.kill();
    // The port may linger a moment after the kill.
    for (let i = 0; ; i++) {
      try { return await this.start(this.addr); } catch (e) {
        if (i >= 20) throw e;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  async stop() {
    await this.kill();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
