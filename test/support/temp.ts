/**
 * Temporary folders for tests: each one is removed when the test that made it finishes, so a run
 * leaves nothing in the system temp dir (test/support/temp-root.ts checks that at the end).
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";

/** A fresh folder under the system temp dir, removed when the current test finishes. Call it inside a test. */
export function testTempDir(prefix: string): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
	return dir;
}
