#!/usr/bin/env node
/**
 * Runs every property test (each test file that imports fast-check) from a random seed, or from
 * FC_SEED when it is set, with FC_RUNS runs per property when that is set: the exploration the fixed
 * seed of an ordinary run leaves out (docs/architecture.md, "Testing"). The seed is printed first and
 * last, so a failure can be run again: `FC_SEED=<seed> npm run test:seeds`. No test timeout: a large
 * FC_RUNS takes as long as it takes.
 *
 * Usage: npm run test:seeds [-- <part of a path>…]   (only the property files whose path holds one; exit code: vitest's)
 */

import { spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");

/** Test files under `dir` that import fast-check. */
function propertyFiles(dir) {
	const out = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) out.push(...propertyFiles(path));
		else if (entry.name.endsWith(".test.ts") && readFileSync(path, "utf8").includes('from "fast-check"'))
			out.push(relative(root, path));
	}
	return out;
}

const seed = process.env.FC_SEED ?? String(randomInt(0, 2 ** 31 - 1));
const filters = process.argv.slice(2);
const files = [...propertyFiles(join(root, "test")), ...propertyFiles(join(root, "bench"))]
	.filter((file) => filters.length === 0 || filters.some((part) => file.includes(part)))
	.sort();
if (files.length === 0) {
	console.error(`test:seeds: no property test file's path holds ${filters.join(" or ")}`);
	process.exit(1);
}
const runs = process.env.FC_RUNS === undefined ? "" : ` FC_RUNS=${process.env.FC_RUNS}`;
console.log(`test:seeds: FC_SEED=${seed}${runs}, ${files.length} files with properties`);
const vitest = spawnSync("npx", ["vitest", "run", "--testTimeout=0", ...files], {
	cwd: root,
	stdio: "inherit",
	env: { ...process.env, FC_SEED: seed },
});
console.log(`test:seeds: FC_SEED=${seed}${runs} (again: FC_SEED=${seed}${runs} npm run test:seeds)`);
process.exit(vitest.status ?? 1);
