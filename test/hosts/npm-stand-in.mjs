/**
 * Pi's `npmCommand` in test/hosts/npm-package.test.ts: npm itself, with one stand-in for the registry,
 * which does not have the package yet. In an `install`, the name `pi-advisor-ledger` (with or without
 * a version, as `pi install npm:pi-advisor-ledger` and `pi update` pass it) becomes the tarball the
 * test packed ($ADVISOR_TARBALL), and `--omit=dev` is added, as a user's install does without dev
 * dependencies. Everything else (`root -g`, `uninstall`, Pi's own flags) goes to npm as it came.
 */

import { spawnSync } from "node:child_process";

const [command, ...rest] = process.argv.slice(2);
const tarball = process.env.ADVISOR_TARBALL;
if (command === "install" && !tarball) {
	process.stderr.write("npm-stand-in: ADVISOR_TARBALL is not set\n");
	process.exit(2);
}
const args =
	command === "install"
		? [command, ...rest.map((arg) => (/^pi-advisor-ledger(@.*)?$/.test(arg) ? tarball : arg)), "--omit=dev"]
		: [command, ...rest];
const npm = spawnSync("npm", args, { stdio: "inherit" });
process.exit(npm.status ?? 1);
