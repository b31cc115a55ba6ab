// Argument parsing of the `advisor-ledger` command line.
import { describe, expect, it } from "vitest";
import { parseArgs, UsageError } from "../../../../src/adapter/lab/cli/args.ts";
import type { Io } from "../../../../src/adapter/lab/cli/io.ts";
import { styleFor } from "../../../../src/adapter/lab/report/text-report.ts";
import { runCli } from "../../../../src/adapter/lab/run.ts";

describe("arguments", () => {
	it("replay: defaults, both value forms, repeated and unknown flags", () => {
		expect(parseArgs(["replay"])).toEqual({
			command: "replay",
			paths: [],
			every: 10,
			allLeaves: false,
			watch: false,
			json: false,
			wide: false,
			svg: undefined,
			price: undefined,
			config: undefined,
			force: false,
		});
		expect(parseArgs(["replay", "a", "--every=3", "--svg", "c.svg", "--json", "--all-leaves", "--", "--b"])).toEqual({
			command: "replay",
			paths: ["a", "--b"],
			every: 3,
			allLeaves: true,
			watch: false,
			json: true,
			wide: false,
			svg: "c.svg",
			force: false,
		});
		expect(parseArgs(["replay", "--svg=c.svg", "--force", "--config", "my.json"])).toMatchObject({
			svg: "c.svg",
			force: true,
			config: "my.json",
		});
		expect(parseArgs(["replay", "--wide"])).toMatchObject({ wide: true, json: false });
		expect(parseArgs(["replay", "--watch", "--json"])).toMatchObject({ watch: true, json: true });
		for (const bad of [
			["replay", "--every", "1.5"],
			["replay", "--json", "--json"],
			["replay", "--wide=yes"],
			["replay", "--x"],
			["nope"],
			["replay", "--force=yes"],
			["replay", "--config"],
			["render", "f.jsonl", "--force"],
		]) {
			expect(() => parseArgs(bad)).toThrow(UsageError);
		}
	});

	it("replay: flags that contradict, or do nothing without another, are usage errors naming both", () => {
		const message = (argv: string[]) => {
			try {
				parseArgs(argv);
			} catch (err) {
				return err instanceof UsageError ? `${err.command}: ${err.message}` : String(err);
			}
			return "accepted";
		};
		const both =
			"replay: --json and --wide cannot be used together: --wide shapes the text report, which --json replaces";
		expect(message(["replay", "--json", "--wide"])).toBe(both);
		expect(message(["replay", "--wide", "samples", "--json"])).toBe(both);
		expect(message(["replay", "--force"])).toBe(
			"replay: --force needs --svg: it lets --svg write over a file that is not an SVG",
		);
		expect(message(["replay", "--json", "--svg", "c.svg", "--force"])).toBe("accepted");
		expect(parseArgs(["replay", "--json", "--wide", "--help"])).toMatchObject({ command: "help" });
	});

	it("replay --json --wide on the command line: one line and the --help hint on stderr, exit 1, nothing on stdout", async () => {
		const out: string[] = [];
		const err: string[] = [];
		const io: Io = {
			stdout: (t) => out.push(t),
			stderr: (t) => err.push(t),
			env: {},
			cwd: "/nonexistent",
			stderrIsTTY: false,
			style: styleFor(false, {}),
			now: () => 0,
		};
		expect(await runCli(["replay", "--json", "--wide"], io)).toBe(1);
		expect(err.join("")).toBe(
			"advisor-ledger replay: --json and --wide cannot be used together: --wide shapes the text report, which --json replaces\nRun `advisor-ledger replay --help` for usage.\n",
		);
		expect(out).toEqual([]);
	});

	it("render: one FILE, --leaf, --at, --facts and --config", () => {
		expect(parseArgs(["render", "f.jsonl", "--at", "abc", "--leaf=def", "--config", "c.json"])).toEqual({
			command: "render",
			file: "f.jsonl",
			leaf: "def",
			at: "abc",
			json: false,
			facts: false,
			config: "c.json",
		});
		expect(parseArgs(["render", "f.jsonl", "--facts"])).toMatchObject({ command: "render", facts: true });
		expect(parseArgs(["render", "--help"])).toMatchObject({ command: "help" });
	});

	it("eval: --advisor required, defaults, every flag, and what each refuses", () => {
		expect(parseArgs(["eval", "--advisor", "anthropic/claude-sonnet-4-5"])).toEqual({
			command: "eval",
			paths: [],
			advisor: "anthropic/claude-sonnet-4-5",
			judge: undefined,
			points: 12,
			arms: ["ledger", "full"],
			maxUsd: undefined,
			yes: false,
			out: "advisor-eval",
			resume: false,
			seed: "1",
			json: false,
		});
		expect(
			parseArgs([
				"eval",
				"s",
				"--advisor=openai/gpt-5",
				"--judge",
				"anthropic:claude-opus-4-1",
				"--points",
				"6",
				"--arms",
				"masked,full,ledger",
				"--max-usd",
				"2.5",
				"--yes",
				"--out",
				"o",
				"--resume",
				"--seed",
				"abc",
				"--json",
			]),
		).toEqual({
			command: "eval",
			paths: ["s"],
			advisor: "openai/gpt-5",
			judge: "anthropic:claude-opus-4-1",
			points: 6,
			arms: ["ledger", "full", "masked"],
			maxUsd: 2.5,
			yes: true,
			out: "o",
			resume: true,
			seed: "abc",
			json: true,
		});
		const refused: [string[], string][] = [
			[["eval"], "--advisor provider/model is required"],
			[["eval", "--advisor", "sonnet"], '--advisor needs provider/model, got "sonnet"'],
			[["eval", "--advisor", "a/b", "--points", "0"], '--points needs a whole number ≥ 1, got "0"'],
			[["eval", "--advisor", "a/b", "--max-usd", "-1"], '--max-usd needs an amount in dollars above 0, got "-1"'],
			[["eval", "--advisor", "a/b", "--max-usd", "0"], '--max-usd needs an amount in dollars above 0, got "0"'],
			[
				["eval", "--advisor", "a/b", "--arms", "ledger"],
				"--arms needs full and at least one of ledger, masked (it is what they are compared with)",
			],
			[["eval", "--advisor", "a/b", "--arms", "ledger,rag"], '--arms: unknown arm "rag" (ledger, full, masked)'],
		];
		// The message says what is wrong; the command it concerns goes into the one prefix (errorPrefix).
		for (const [argv, message] of refused) {
			const thrown = (() => {
				try {
					parseArgs(argv);
				} catch (error) {
					return error;
				}
				return undefined;
			})();
			expect(thrown).toBeInstanceOf(UsageError);
			expect((thrown as UsageError).message).toBe(message);
			expect((thrown as UsageError).command).toBe("eval");
		}
		expect(parseArgs(["eval", "--help"])).toMatchObject({ command: "help" });
		expect(parseArgs(["help", "eval"])).toMatchObject({
			command: "help",
			text: expect.stringContaining("calls models"),
		});
	});
});
