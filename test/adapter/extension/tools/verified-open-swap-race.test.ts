/**
 * Check-then-open races: a second process swaps a folder of the workspace for a symlink to an
 * outside folder holding a file of the same name, and back, as fast as it can, while the tools
 * read through that folder many times. A check made before opening can pass on the folder and
 * the open land on the link; only a check of what was actually opened holds. The counts are
 * bounded, and nothing depends on timing: a hit is a hit, and zero is the only passing count.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { lstatSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeSandbox, run, type Sandbox, textOf, toolsFor } from "./fixture.ts";

const READS = 4000;
const GREPS = 400;
const LISTINGS = 4000;
const PARALLEL = 6;

let box: Sandbox;
let swapper: ChildProcess | undefined;

/**
 * Swaps `dir` between a real folder and a symlink to `target`, until killed (or a bounded
 * count). It lingers as a folder (a few stat calls) and flips to the link briefly: a leak needs
 * every check of a call to see the folder and only the open to see the link.
 */
const SWAPPER = `
const fs = require("node:fs");
const [dir, target] = process.argv.slice(1);
const parked = dir + ".parked";
for (let i = 0; i < 50_000_000; i++) {
	for (let j = 0; j < 25; j++) fs.statSync(dir);
	fs.renameSync(dir, parked);
	fs.symlinkSync(target, dir);
	fs.unlinkSync(dir);
	fs.renameSync(parked, dir);
}
`;

beforeAll(() => {
	box = makeSandbox();
	box.write("sub/data.txt", "INSIDE_CONTENT\n");
	box.write("sub/inside-only.txt", "x\n");
	mkdirSync(join(box.outside, "target"));
	writeFileSync(join(box.outside, "target/data.txt"), "OUTSIDE_CONTENT\n");
	writeFileSync(join(box.outside, "target/outside-only.txt"), "OUTSIDE_CONTENT\n");
	swapper = spawn(process.execPath, ["-e", SWAPPER, join(box.root, "sub"), join(box.outside, "target")], {
		stdio: "ignore",
	});
});

afterAll(async () => {
	const child = swapper;
	if (child !== undefined && child.exitCode === null) {
		const exited = new Promise((done) => child.once("exit", done));
		child.kill("SIGKILL");
		await exited;
	}
	box.cleanup();
});

/** Runs `total` calls, `PARALLEL` at a time; returns how many results contained `needle`. */
async function countLeaks(total: number, call: () => Promise<string>, needle: string): Promise<number> {
	let leaks = 0;
	let started = 0;
	const worker = async () => {
		while (started < total) {
			started++;
			if ((await call()).includes(needle)) leaks++;
		}
	};
	await Promise.all(Array.from({ length: PARALLEL }, worker));
	return leaks;
}

describe("a folder swapped for a symlink to outside, in a loop", () => {
	test("the swapper really swaps (the test would prove nothing otherwise)", async () => {
		let sawLink = false;
		let sawDir = false;
		for (let i = 0; i < 1_000_000 && !(sawLink && sawDir); i++) {
			try {
				const s = lstatSync(join(box.root, "sub"));
				if (s.isSymbolicLink()) sawLink = true;
				else if (s.isDirectory()) sawDir = true;
			} catch {
				// Between the rename and the symlink there is no `sub` at all.
			}
			if (i % 1000 === 999) await new Promise((done) => setImmediate(done));
		}
		expect([sawLink, sawDir]).toEqual([true, true]);
	});

	test(`read: ${READS} reads of sub/data.txt, zero outside content`, async () => {
		const tools = toolsFor(box.root);
		const leaks = await countLeaks(
			READS,
			async () => textOf(await run(tools, "read", { path: "sub/data.txt" })),
			"OUTSIDE_CONTENT",
		);
		expect(leaks).toBe(0);
	}, 300_000);

	test(`grep: ${GREPS} searches of the workspace, zero outside lines`, async () => {
		const tools = toolsFor(box.root);
		const leaks = await countLeaks(
			GREPS,
			async () => textOf(await run(tools, "grep", { pattern: "CONTENT" })),
			"OUTSIDE_CONTENT",
		);
		expect(leaks).toBe(0);
	}, 300_000);

	test(`ls: ${LISTINGS} listings of sub, zero outside names`, async () => {
		const tools = toolsFor(box.root);
		const leaks = await countLeaks(
			LISTINGS,
			async () => textOf(await run(tools, "ls", { path: "sub" })),
			"outside-only",
		);
		expect(leaks).toBe(0);
	}, 300_000);
});
