/**
 * `npm run demo` as a newcomer runs it (docs/demo.md), in a real terminal (a private tmux server),
 * on each host: the intro line, then Pi's TUI working the scripted task until the advice card and
 * the footer show dollars and a cache share. Ending Pi ends the scripted server and the demo's folder
 * with it, whether by ctrl+c twice (Pi 0.73.1) or by closing the terminal (Pi 1.6.0). How long the
 * card takes is measured and printed, never asserted.
 */

import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it, onTestFinished } from "vitest";
import { ADVISOR, FINAL } from "../../scripts/demo/scripted-models.ts";
import { DEMO_PREFIX } from "../../scripts/demo/workspace.ts";
import { describeEachHost, type PiHost, REPO_ROOT } from "../support/hosts.ts";
import { testTempDir } from "../support/temp.ts";
import { startTmux, type TmuxSession } from "../support/tmux.ts";

const CARD = `Severity: concern · ${ADVISOR.name} (demo/${ADVISOR.id}) · `;
/** The first words of the executor's answer, as Pi renders its markdown (no backticks). */
const ANSWER = FINAL.replaceAll("`", "").slice(0, 60);
const EXITED = "demo exited with ";

/**
 * `npm run demo` for the host in a 200-column terminal; the shell stays after it to say how it exited.
 * `close` closes the terminal (once; also when the test ends).
 */
function startDemo(host: PiHost): { tui: TmuxSession; started: number; close(): void } {
	const args = host.id === "pi-1.6.0" ? " -- --host 1.6" : "";
	const started = Date.now();
	const tui = startTmux({
		command: ["sh", "-c", `npm run demo${args}; echo "${EXITED}$?"; sleep 120`],
		// npm's logs go to this HOME; the demo's folder to the run's temp dir, checked at the end of the run.
		env: {
			PATH: process.env.PATH,
			HOME: testTempDir("demo-npm-home-"),
			TMPDIR: tmpdir(),
			npm_config_update_notifier: "false",
		},
		cwd: REPO_ROOT,
		width: 200,
	});
	let open = true;
	const close = () => {
		if (open) tui.kill();
		open = false;
	};
	onTestFinished(close);
	return { tui, started, close };
}

/** The demo's folder, as the intro line names it, and the port its server listens on (models.json). */
async function demoFolder(tui: TmuxSession): Promise<{ root: string; port: number }> {
	const screen = await tui.until((s) => s.some((row) => row.startsWith("Demo: ")), "the intro line", 60_000);
	const intro = screen.find((row) => row.startsWith("Demo: "))!;
	expect(intro).toMatch(/Try \/advisor \(the picker\) and \/advisor stats\.$/);
	const root = /files in (\S+),/.exec(intro)![1]!;
	expect(root.startsWith(join(tmpdir(), DEMO_PREFIX))).toBe(true);
	const models = JSON.parse(readFileSync(join(root, "home/.pi/agent/models.json"), "utf8"));
	return { root, port: Number(new URL(models.providers.demo.baseUrl).port) };
}

function refused(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = connect(port, "127.0.0.1");
		socket.on("connect", () => {
			socket.destroy();
			resolve(false);
		});
		socket.on("error", () => resolve(true));
	});
}

/** Every running process whose command line names the folder (Pi's does: its --session-dir). */
const processesIn = (root: string) =>
	execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
		.split("\n")
		.filter((line) => line.includes(root) && !line.startsWith("ps "));

async function expectGone(root: string, port: number): Promise<void> {
	for (const deadline = Date.now() + 20_000; existsSync(root) && Date.now() < deadline; )
		await new Promise((resolve) => setTimeout(resolve, 100));
	expect(existsSync(root)).toBe(false);
	expect(await refused(port)).toBe(true);
	expect(processesIn(root)).toEqual([]);
}

/** How each host's run ends: both ways a user ends it, one per host, so no host starts Pi twice. */
const ENDINGS = {
	"pi-0.73.1": "ctrl+c twice",
	"pi-1.6.0": "the terminal closed",
} as const;

describeEachHost("npm run demo", (host) => {
	const ending = ENDINGS[host.id];
	it(`works the task to the advice card and the footer; ${ending} ends Pi, the server and the folder`, async () => {
		const { tui, started, close } = startDemo(host);
		const { root, port } = await demoFolder(tui);
		expect(readdirSync(join(root, "project")).sort()).toEqual([".git", "slug.mjs", "test"]);

		const screen = await tui.until((s) => s.some((row) => row.includes(CARD)), "the advice card", 120_000);
		process.stderr.write(
			`[demo] ${host.label}: the advice card after ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
		);
		const card = screen.find((row) => row.includes(CARD))!.trim();
		expect(card).toMatch(/ · \$0\.\d{3} · 2 requests · \d+% from cache$/);
		expect(card).not.toMatch(/ · 0% from cache$/);

		const done = await tui.until(
			(s) => s.some((row) => row.includes(ANSWER)) && s.some((row) => row.startsWith("Advisor $")),
			"the executor's answer and the footer",
		);
		// One consultation so far: the footer's dollars and share are the card's.
		const [, dollars, share] = / · (\$0\.\d{3}) · 2 requests · (\d+)% from cache$/.exec(card)!;
		expect(done.filter((row) => row.startsWith("Advisor $"))).toEqual([`Advisor ${dollars} · cache ${share}%`]);

		if (ending === "ctrl+c twice") {
			tui.keys("C-c", "C-c");
			await tui.until((s) => s.some((row) => row.startsWith(EXITED)), "the demo to exit");
			expect(tui.screen().filter((row) => row.startsWith(EXITED))).toEqual([`${EXITED}0`]);
		} else {
			// Every process of the terminal gets SIGHUP: the demo passes it on to Pi as SIGTERM.
			close();
		}
		await expectGone(root, port);
	}, 180_000);
});
