// The CLI's writer on a real pipe (a FIFO, both ends held here): it writes whole, and a reader
// that went away is known at the write that finds it. The built CLI with a closed stdout is
// closed-pipe.e2e.test.ts.
import { execFileSync } from "node:child_process";
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fdWriter, isReaderGone } from "../../../../src/adapter/lab/cli/stdio-writer.ts";
import { repoRoot } from "../../../support/cli-build.ts";

mkdirSync(path.join(repoRoot, ".tmp"), { recursive: true });
const work = mkdtempSync(path.join(repoRoot, ".tmp", "stdio-writer-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A pipe: the read end (non-blocking, so a test never waits on it) and the write end. */
function pipe(name: string): { read: number; write: number } {
	const file = path.join(work, name);
	execFileSync("mkfifo", [file]);
	const read = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
	return { read, write: openSync(file, constants.O_WRONLY) };
}

describe("fdWriter", () => {
	it("writes every byte of the text, multi-byte characters included", () => {
		const { read, write } = pipe("whole");
		const text = "ledger · ✓ 漢字\n".repeat(100);
		let gone = 0;
		fdWriter(write, () => gone++)(text);
		const buffer = Buffer.alloc(64 * 1024);
		const got = readSync(read, buffer, 0, buffer.length, null);
		expect(buffer.subarray(0, got).toString("utf8")).toBe(text);
		expect(gone).toBe(0);
		closeSync(read);
		closeSync(write);
	});

	it("a reader gone: the write that finds it says so once, and later writes are dropped", () => {
		const { read, write } = pipe("gone");
		closeSync(read);
		let gone = 0;
		const out = fdWriter(write, () => gone++);
		out("first\n");
		expect(gone).toBe(1);
		out("second\n");
		expect(gone).toBe(1);
		closeSync(write);
	});

	it("any other failure is not taken for a reader gone: it is thrown", () => {
		// The read end is not open for writing: EBADF, nothing to do with a reader.
		const { read, write } = pipe("read-end");
		let gone = 0;
		expect(() => fdWriter(read, () => gone++)("text\n")).toThrow(/EBADF/);
		expect(gone).toBe(0);
		closeSync(read);
		closeSync(write);
		expect(isReaderGone(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }))).toBe(true);
		expect(isReaderGone(Object.assign(new Error("ENOSPC"), { code: "ENOSPC" }))).toBe(false);
	});
});
