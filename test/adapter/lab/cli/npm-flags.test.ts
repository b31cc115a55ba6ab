// The flags npm keeps for itself before `--`, seen from the variables it sets (the real npm's
// behaviour is in npm-run.e2e.test.ts).
import { describe, expect, it } from "vitest";
import { COMMAND_FLAGS } from "../../../../src/adapter/lab/cli/args.ts";
import { npmKeptFlagsLine } from "../../../../src/adapter/lab/cli/npm-flags.ts";

const underNpm = (vars: Record<string, string>): NodeJS.ProcessEnv => ({ npm_lifecycle_event: "replay", ...vars });

describe("flags npm kept", () => {
	it("a switch npm took (`npm run replay --json`): one line naming it and the form that passes it (silent for JSON)", () => {
		expect(npmKeptFlagsLine(["replay"], underNpm({ npm_config_json: "true" }))).toBe(
			"npm took --json for itself (npm_config_json) and did not pass it on; put the flags after --: npm run -s replay -- --json",
		);
	});

	it("--json with another flag: the form is npm's silent one (its banner would come before the JSON)", () => {
		expect(npmKeptFlagsLine(["replay"], underNpm({ npm_config_json: "true", npm_config_wide: "true" }))).toContain(
			"put the flags after --: npm run -s replay -- --json --wide",
		);
		expect(npmKeptFlagsLine(["replay"], underNpm({ npm_config_wide: "true" }))).toContain(
			"put the flags after --: npm run replay -- --wide",
		);
	});

	it("a value flag: `--every 3` leaves only `true` (the value became a path), `--every=3` the value", () => {
		expect(npmKeptFlagsLine(["replay", "samples", "3"], underNpm({ npm_config_every: "true" }))).toContain(
			"npm run replay -- --every N",
		);
		expect(npmKeptFlagsLine(["replay"], underNpm({ npm_config_every: "3" }))).toContain(
			"npm run replay -- --every 3",
		);
	});

	it("several at once, dashes as npm spells them (`--all-leaves` → npm_config_all_leaves), every one named", () => {
		const line = npmKeptFlagsLine(
			["replay"],
			underNpm({ npm_config_all_leaves: "true", npm_config_wide: "true", npm_config_price: "true" }),
		);
		expect(line).toContain("npm took --all-leaves, --wide, --price for itself");
		expect(line).toContain("(npm_config_all_leaves, npm_config_wide, npm_config_price) and did not pass them on");
		expect(line).toContain("npm run replay -- --all-leaves --wide --price PROVIDER/MODEL");
	});

	it("every flag of every command but eval's --yes is looked for, under the script's own name", () => {
		for (const [command, flags] of Object.entries(COMMAND_FLAGS)) {
			for (const flag of Object.keys(flags).filter((name) => name !== "--yes")) {
				const variable = `npm_config_${flag.slice(2).replaceAll("-", "_")}`;
				const env = { npm_lifecycle_event: "my-script", [variable]: "true" };
				const silent = flag === "--json" ? "-s " : "";
				expect(npmKeptFlagsLine([command], env), `${command} ${flag}`).toContain(
					`npm run ${silent}my-script -- ${flag}`,
				);
			}
		}
	});

	it("not npx's own flags (`npx --yes advisor-ledger …`; npx passes the command's), nor an .npmrc's yes=true", () => {
		const npx = { npm_lifecycle_event: "npx", npm_config_yes: "true", npm_config_json: "true" };
		expect(npmKeptFlagsLine(["eval", "--advisor", "a/b"], npx)).toBeUndefined();
		expect(npmKeptFlagsLine(["stats"], npx)).toBeUndefined();
		expect(npmKeptFlagsLine(["eval", "--advisor", "a/b"], underNpm({ npm_config_yes: "true" }))).toBeUndefined();
	});

	it("nothing to say: not under npm, a flag that reached the CLI, npm's false (\"\"), another command's flag", () => {
		expect(npmKeptFlagsLine(["replay"], { npm_config_json: "true" })).toBeUndefined();
		expect(npmKeptFlagsLine(["replay", "--json"], underNpm({ npm_config_json: "true" }))).toBeUndefined();
		expect(npmKeptFlagsLine(["replay", "--every=3"], underNpm({ npm_config_every: "3" }))).toBeUndefined();
		expect(npmKeptFlagsLine(["replay"], underNpm({ npm_config_json: "", npm_config_wide: "false" }))).toBeUndefined();
		expect(
			npmKeptFlagsLine(["stats"], underNpm({ npm_config_every: "true", npm_config_yes: "true" })),
		).toBeUndefined();
		expect(npmKeptFlagsLine(["--help"], underNpm({ npm_config_json: "true" }))).toBeUndefined();
		expect(npmKeptFlagsLine([], underNpm({ npm_config_json: "true" }))).toBeUndefined();
	});

	it("what the environment says is shown escaped: no terminal control reaches the line", () => {
		const line = npmKeptFlagsLine(["replay"], {
			npm_lifecycle_event: "re\u001b[2Jplay",
			npm_config_every: "3\u0007",
		});
		expect(line).toBeDefined();
		expect(line).not.toMatch(/[\u0000-\u001f]/);
	});
});
