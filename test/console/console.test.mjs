// Drives toold's console in headless Chromium (Debian's chromium, through
// playwright-core). Run by test/e2e/console_test.go, which starts two toold
// replicas on one Redis and passes everything in the environment:
//
//   CHROMIUM       the browser binary
//   CONSOLE_URL    the console of replica B
//   GRPC_ADDR      the gRPC address of replica A, where the calls run
//   GRPCURL        grpcurl
//   TOKEN_A        team-a's bearer token
//   SESSION_A      a session of team-a (default mode: Bash asks)
//   SESSION_B      a session of team-b, with a request waiting
//   OUT_DIR        where the Execute streams' outputs are written
//   SCREENSHOT     where the screenshot goes
//
// It raises an ask by an Execute on replica A, sees it on replica B's
// console, approves it in the page and waits for the Execute to finish;
// raises another, denies it with a message; and checks on every page that
// team-b's session never appears. The Go test then reads the Execute
// outputs (the tool_results).
import { chromium } from "playwright-core";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const [console_, grpcAddr, tokenA, sessionA, sessionB, outDir] =
  ["CONSOLE_URL", "GRPC_ADDR", "TOKEN_A", "SESSION_A", "SESSION_B", "OUT_DIR"].map(env);

const step = (msg) => console.log(`step: ${msg}`);

function fail(msg) {
  throw new Error(msg);
}

// execute runs one Bash call on replica A with grpcurl and resolves with
// its output when the stream ends.
function execute(toolUseID, command) {
  const body = JSON.stringify({ session_id: sessionA, calls: [{ tool_use_id: toolUseID, name: "Bash", input: { command } }] });
  const p = spawn(env("GRPCURL"), ["-plaintext", "-H", `authorization: Bearer ${tokenA}`, "-d", body, grpcAddr, "toold.v1.ToolService/Execute"]);
  let out = "";
  p.stdout.on("data", (d) => (out += d));
  p.stderr.on("data", (d) => (out += d));
  return new Promise((resolve) => p.on("close", (code) => {
    writeFileSync(join(outDir, `${toolUseID}.out`), out);
    resolve({ code, out });
  }));
}

function within(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms))),
  ]);
}

// neverB checks that nothing of team-b's session is on the page.
async function neverB(page, where) {
  const html = await page.content();
  if (html.includes(sessionB)) fail(`team-b's session ${sessionB} appears on ${where}`);
}

const profile = mkdtempSync(join(tmpdir(), "toold-console-chromium-"));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: env("CHROMIUM"),
  headless: true,
  viewport: { width: 1180, height: 900 },
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(20000);
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  // The script's own errors; the 401 and 404 the test asks for on purpose
  // are reported as failed loads, which are not the script's.
  page.on("console", (m) => { if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) errors.push(m.text()); });

  // Log in with team-a's token.
  await page.goto(console_ + "/");
  if (!page.url().endsWith("/login")) fail(`without a cookie the console did not ask for a login: ${page.url()}`);
  await page.fill("input[name=token]", "not-a-token");
  await page.click("button[type=submit]");
  await page.waitForSelector("p.error");
  await page.fill("input[name=token]", tokenA);
  await page.click("button[type=submit]");
  await page.waitForSelector(`tr[data-session="${sessionA}"]`);
  if ((await page.textContent("[data-test=tenant]")) !== "team-a") fail("the page does not name team-a");
  await neverB(page, "the sessions list");
  step("logged in; team-a's session listed, team-b's not");

  // An Execute on replica A asks; the list on replica B shows it waiting.
  const first = execute("toolu_console_1", "echo approved-ran > proof && cat proof");
  await page.waitForSelector(`tr[data-session="${sessionA}"] .badge.ask`);
  await neverB(page, "the sessions list");
  await page.click(`a[href="/sessions/${sessionA}"]`);
  const ask1 = page.locator("article.request").filter({ hasText: "echo approved-ran" });
  await ask1.waitFor();
  const cmd = await ask1.locator("[data-test=command]").textContent();
  if (!cmd.includes("echo approved-ran > proof && cat proof")) fail(`the ask shows the command as ${cmd}`);
  if (!(await ask1.locator("table.parts").textContent()).includes("cat proof")) fail("the ask lacks the Bash analysis");
  if (!(await ask1.locator("[data-test=reason]").textContent()).trim()) fail("the ask lacks the reason");
  step("the ask raised on replica A is shown on replica B, with the Bash analysis");

  await ask1.locator("button[value=once]").click();
  await page.waitForSelector(".notice");
  const r1 = await within(first, 20000, "the approved Execute");
  if (r1.code !== 0) fail(`the approved Execute exited ${r1.code}:\n${r1.out}`);
  await page.locator("#feed li.item.k-result", { hasText: "approved-ran" }).waitFor();
  step("approved in the page; the Execute finished and its result is in the live feed");

  // A second ask, denied with a message.
  const second = execute("toolu_console_2", "rm -rf build && git push --force origin main");
  const ask2 = page.locator("article.request").filter({ hasText: "git push --force" });
  await ask2.waitFor();
  await ask2.locator("input[name=message]").fill("Not on main: open a pull request instead.");
  await neverB(page, "the session page");
  await page.screenshot({ path: env("SCREENSHOT"), fullPage: true });
  step("screenshot taken");
  await ask2.locator("button[value=deny]").click();
  await page.waitForSelector(".notice");
  const r2 = await within(second, 20000, "the denied Execute");
  if (r2.code !== 0) fail(`the denied Execute exited ${r2.code}:\n${r2.out}`);
  await page.locator("#feed li.item.k-result.error", { hasText: "open a pull request" }).waitFor();
  await page.reload();
  if ((await page.textContent("[data-test=denials]")).trim() !== "1") fail("the denial is not counted");
  await page.waitForSelector("[data-test=no-asks]");
  step("denied with a message; the Execute finished; the denial is counted");

  // team-b's session is not there for team-a, not even by its id.
  const res = await page.goto(`${console_}/sessions/${sessionB}`);
  if (res.status() !== 404) fail(`team-a opened team-b's session: ${res.status()}`);
  await page.goto(console_ + "/");
  await neverB(page, "the sessions list at the end");
  if (errors.length) fail(`the page reported errors: ${errors.join("; ")}`);
  step("team-b's session never appeared");
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
