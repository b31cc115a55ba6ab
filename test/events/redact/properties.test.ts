/**
 * What must hold for any text: no planted credential survives wherever it sits; redacting twice is
 * redacting once; the words around a mark stay verbatim; a text without a candidate comes back as the
 * same string; the same input gives the same bytes.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	countMarks,
	DEFAULT_PRIVACY,
	redactText,
	redactValue,
	redactValueWithCount,
	redactWithCount,
} from "../../../src/events/redact/index.ts";
import { hasCandidate } from "../../../src/events/redact/redactor.ts";
import { FC_RUNS, PROPERTY_TIMEOUT } from "../helpers.ts";
import { type Plant, plantArb } from "./credentials.ts";
import { LOOKALIKES } from "./lookalikes.ts";

const redact = (text: string) => redactText(text, DEFAULT_PRIVACY);
const MARK = /\[redacted: [a-z0-9]+(?:-[a-z0-9]+)*\]/g;

/** Noise around a plant: any characters, then a separator so the noise cannot run into the credential. */
const noise = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: "grapheme", maxLength: 20 }), fc.constant(""));
const before = fc.constantFrom(" ", "\n", "\t", "(", '"', "'", ",", ";", "[", "{", "=", ": ", "> ", "\r\n");
const after = fc.constantFrom(" ", "\n", "\t", ",", ";", '"', "'", ")", "}", "]", "\r\n", "");

/** Where a plant sits: raw in noise, in a JSON string, in a fenced block, quoted in prose, twice. */
type Place = (plant: string, pre: string, post: string) => string;
const PLACES: readonly (readonly [string, Place])[] = [
	["raw", (p, pre, post) => pre + p + post],
	["json", (p, pre, post) => JSON.stringify({ output: pre + p + post, exitCode: 0 })],
	["fenced", (p, pre, post) => `${pre}\n\`\`\`\n${p}\n\`\`\`\n${post}`],
	["line of a file", (p, pre, post) => `${pre}\n# config\n${p}\n${post}`],
	["twice", (p, pre, post) => `${pre}${p}\n${p}${post}`],
];

const placedArb = fc
	.tuple(fc.array(plantArb, { minLength: 1, maxLength: 3 }), fc.constantFrom(...PLACES), noise, before, after, noise)
	.map(([plants, [place, put], n1, b, a, n2]) => ({
		plants,
		place,
		// An empty separator after means the text ends there.
		text: put(plants.map((p) => p.text).join(a === "" ? "\n" : a + b), n1 + b, a === "" ? "" : a + n2),
	}));

function leaked(output: string, plants: readonly Plant[]): string[] {
	return plants.flatMap((p) =>
		p.secrets.filter((s) => output.includes(s) || output.includes(JSON.stringify(s).slice(1, -1))),
	);
}

describe("no planted credential survives", () => {
	it(
		"in any place, among any words",
		() => {
			fc.assert(
				fc.property(placedArb, ({ plants, text }) => {
					const out = redact(text);
					expect(leaked(out, plants)).toEqual([]);
					// Side by side, one mark may cover two plants (a .netrc password runs to the next space).
					if (plants.length === 1) expect(out).toContain(`[redacted: ${plants[0]!.kind}]`);
				}),
				{ numRuns: FC_RUNS * 3 },
			);
		},
		PROPERTY_TIMEOUT,
	);

	it(
		"in a tool call's arguments, under any key",
		() => {
			fc.assert(
				fc.property(plantArb, fc.string({ maxLength: 12 }), (plant, key) => {
					const args = { path: ".env", [key]: plant.text, nested: [{ content: `x\n${plant.text}\n` }] };
					const { value, count } = redactValueWithCount(args, DEFAULT_PRIVACY);
					expect(leaked(JSON.stringify(value), [plant])).toEqual([]);
					expect(count).toBeGreaterThanOrEqual(2);
					expect(Object.keys(value)).toEqual(Object.keys(args));
				}),
				{ numRuns: FC_RUNS },
			);
		},
		PROPERTY_TIMEOUT,
	);
});

describe("redaction is stable", () => {
	it(
		"redacting twice is redacting once, and the same input gives the same bytes",
		() => {
			fc.assert(
				fc.property(placedArb, ({ text }) => {
					const once = redactWithCount(text, DEFAULT_PRIVACY);
					const twice = redactWithCount(once.text, DEFAULT_PRIVACY);
					expect(twice.text).toBe(once.text);
					expect(twice.count).toBe(0);
					expect(redact(text)).toBe(once.text);
				}),
				{ numRuns: FC_RUNS },
			);
		},
		PROPERTY_TIMEOUT,
	);

	it(
		"the words around the marks stay verbatim, in order, and the count is the number of new marks",
		() => {
			fc.assert(
				fc.property(placedArb, ({ text }) => {
					const { text: out, count } = redactWithCount(text, DEFAULT_PRIVACY);
					let at = 0;
					for (const piece of out.split(MARK)) {
						const found = text.indexOf(piece, at);
						expect(found).toBeGreaterThanOrEqual(at);
						at = found + piece.length;
					}
					expect(countMarks(out) - countMarks(text)).toBe(count);
				}),
				{ numRuns: FC_RUNS },
			);
		},
		PROPERTY_TIMEOUT,
	);

	it(
		"a text without a candidate comes back as the same string",
		() => {
			const words = fc.constantFrom(
				...LOOKALIKES,
				"hello",
				"ledger",
				"commit",
				"index.ts",
				"0123456789",
				" ",
				"\n",
				"{}",
				"=",
				":",
			);
			const text = fc.oneof(
				fc.string({ maxLength: 200 }),
				fc.string({ unit: "grapheme", maxLength: 80 }),
				fc.array(words, { maxLength: 30 }).map((w) => w.join("")),
			);
			fc.assert(
				fc.property(text, (t) => {
					const out = redact(t);
					if (!hasCandidate(t, DEFAULT_PRIVACY)) expect(out).toBe(t);
					if (out !== t) expect(hasCandidate(t, DEFAULT_PRIVACY)).toBe(true);
				}),
				{ numRuns: FC_RUNS * 3 },
			);
		},
		PROPERTY_TIMEOUT,
	);

	it("every plant is a candidate (so the property above is not empty)", () => {
		fc.assert(
			fc.property(plantArb, (p) => {
				expect(hasCandidate(p.text, DEFAULT_PRIVACY)).toBe(true);
			}),
			{ numRuns: FC_RUNS },
		);
	});

	it(
		"redactValue hands back the very same value when nothing is redacted",
		() => {
			const leaf = fc.oneof(fc.constantFrom(...LOOKALIKES), fc.integer(), fc.boolean(), fc.constant(null));
			const json = fc.letrec((tie) => ({
				value: fc.oneof(
					{ depthSize: "small" },
					leaf,
					fc.array(tie("value")),
					fc.dictionary(fc.string(), tie("value")),
				),
			})).value;
			fc.assert(
				fc.property(json, (v) => {
					expect(redactValue(v, DEFAULT_PRIVACY)).toBe(v);
				}),
				{ numRuns: FC_RUNS },
			);
		},
		PROPERTY_TIMEOUT,
	);
});

describe("switched off", () => {
	const off = { ...DEFAULT_PRIVACY, redact: false };

	it("redact: false hands every text and value back untouched", () => {
		fc.assert(
			fc.property(placedArb, ({ text }) => {
				expect(redactWithCount(text, off)).toEqual({ text, count: 0 });
				const value = { text, list: [text] };
				expect(redactValue(value, off)).toBe(value);
			}),
			{ numRuns: 50 },
		);
	});
});
