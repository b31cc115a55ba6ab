/**
 * Vitest global setup: the run gets a temp dir of its own (TMPDIR, inherited by every worker and by
 * the Pi hosts the end-to-end tests start), and at the end whatever a test left there is named and
 * the run fails. Tests clean up after themselves (test/support/temp.ts); this catches the ones that
 * don't, without mistaking another process's folders in the shared temp dir for ours.
 *
 * The tools' own caches (tsx's, jiti's and Node's compile caches) are linked to the shared temp dir, so
 * a run keeps them warm and they are not counted as left behind.
 */

import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Caches other tools keep under the temp dir (Node 22's compile cache: Pi 1.x turns it on); ours are
 * shared with the system temp dir; none is counted.
 */
const CACHES = ["jiti", `tsx-${process.getuid?.() ?? 0}`, "node-compile-cache"];
/** tsx's cache of another user (a test that drops privileges): made inside the run's dir, not counted. */
const OTHER_USERS_CACHE = /^tsx-\d+$/;

export default function setup(): () => void {
	const shared = tmpdir();
	const root = mkdtempSync(join(shared, "advisor-test-run-"));
	// Like /tmp: tests that drop privileges (runuser -u nobody) make their folders (and tsx its cache) here too.
	chmodSync(root, 0o1777);
	for (const cache of CACHES) {
		mkdirSync(join(shared, cache), { recursive: true });
		symlinkSync(join(shared, cache), join(root, cache));
	}
	const previous = process.env.TMPDIR;
	process.env.TMPDIR = root;
	return () => {
		if (previous === undefined) delete process.env.TMPDIR;
		else process.env.TMPDIR = previous;
		const left = readdirSync(root).filter((name) => !CACHES.includes(name) && !OTHER_USERS_CACHE.test(name));
		rmSync(root, { recursive: true, force: true });
		if (left.length > 0) {
			// Vitest reports an error thrown here but still exits 0: the exit code is set as well.
			process.exitCode = 1;
			throw new Error(`the tests left ${left.length} folder(s) in the temp dir: ${left.sort().join(", ")}`);
		}
	};
}
