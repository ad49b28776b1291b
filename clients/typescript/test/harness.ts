// A real toold for the tests, built once (or TOOLD_BIN) and started on a
// free loopback port; and a TCP proxy whose connections a test can cut.

import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

// dist/test/harness.js -> the repository root.
export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");

let built: string | undefined;

export function tooldBinary(): string {
  if (process.env.TOOLD_BIN) return process.env.TOOLD_BIN;
  if (!built) {
    const d = mkdtempSync(path.join(tmpdir(), "toold-tstest-bin-"));
    chmodSync(d, 0o755); // sandboxed commands run as another user, from toold-sandbox here
    execFileSync("go", ["build", "-o", d, "./cmd/toold", "./cmd/toold-sandbox"], { cwd: repo, stdio: "inherit" });
    built = path.join(d, "toold");
  }
  return built;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(port, "127.0.0.1");
    c.once("connect", () => { c.destroy(); resolve(true); });
    c.once("error", () => resolve(false));
  });
}

export class Toold {
  readonly dir: string;
  addr = "";
  proc?: ChildProcess;

  constructor(readonly extra: string[] = []) {
    this.dir = mkdtempSync(path.join(tmpdir(), "toold-tstest-"));
    chmodSync(this.dir, 0o711); // the sandbox user reaches the workspaces
  }

  async start(): Promise<this> {
    const port = await freePort();
    this.addr = `127.0.0.1:${port}`;
    const log = openSync(path.join(this.dir, "toold.log"), "w");
    this.proc = spawn(tooldBinary(), ["--listen", this.addr, "--workspace-root", path.join(this.dir, "workspaces"), "--log-level", "debug", ...this.extra],
      { stdio: ["ignore", log, log] });
    let exited = false;
    this.proc.once("exit", () => { exited = true; });
    while (!(await canConnect(port))) {
      if (exited) throw new Error(`toold exited:\n${readFileSync(path.join(this.dir, "toold.log"), "utf8")}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return this;
  }

  async stop(): Promise<void> {
    if (this.proc && this.proc.exitCode === null) {
      const done = new Promise((r) => this.proc!.once("exit", r));
      this.proc.kill("SIGKILL");
      await done;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Forwards a loopback port to target; cut() destroys every open connection
 * (new ones are still accepted). */
export class Proxy {
  private server: net.Server;
  private conns = new Set<net.Socket>();
  accepted = 0;
  addr = "";

  /** refuse: the first connections are closed at once, as by a server that
   * is not up yet. */
  constructor(readonly target: string, public refuse = 0) {
    const [host, port] = [target.slice(0, target.lastIndexOf(":")), Number(target.slice(target.lastIndexOf(":") + 1))];
    this.server = net.createServer((c) => {
      if (this.refuse > 0) {
        this.refuse--;
        c.destroy();
        return;
      }
      this.accepted++;
      const u = net.connect(port, host);
      for (const s of [c, u]) {
        this.conns.add(s);
        s.on("error", () => {});
        s.on("close", () => { this.conns.delete(s); c.destroy(); u.destroy(); });
      }
      c.pipe(u);
      u.pipe(c);
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.addr = `127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
    return this;
  }

  cut(): void {
    for (const s of this.conns) s.destroy();
    this.conns.clear();
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((r) => this.server.close(() => r()));
  }
}
