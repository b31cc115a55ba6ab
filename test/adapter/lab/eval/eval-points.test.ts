// Which points an eval draws, and in which order: real advisor calls first, sessions taking turns,
// each session's points spread over its length, all from the seed.
import { describe, expect, it } from "vitest";
import { drawOrder, type EvalSession } from "../../../../src/adapter/lab/eval/eval-points.ts";
import { seededRandom, shuffled, spreadOrder } from "../../../../src/adapter/lab/eval/random.ts";

function session(file: string, points: number, kind: "advisor" | "simulated"): EvalSession {
	const events = Array.from({ length: points * 10 }, (_, i) => ({ id: `${file}-${i}` }));
	return {
		file,
		text: "",
		sessionId: file,
		cwd: undefined,
		entries: [],
		path: [],
		events: events as unknown as EvalSession["events"],
		points: Array.from({ length: points }, (_, i) => ({ upTo: (i + 1) * 10, kind })),
	};
}

describe("the seeded draws", () => {
	it("the same seed and salt give the same stream; another seed another", () => {
		const a = seededRandom("1", "points");
		const b = seededRandom("1", "points");
		const c = seededRandom("2", "points");
		const xs = [a(), a(), a()];
		expect([b(), b(), b()]).toEqual(xs);
		expect([c(), c(), c()]).not.toEqual(xs);
		for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
		expect(shuffled([1, 2, 3, 4, 5], seededRandom("s", "x")).sort()).toEqual([1, 2, 3, 4, 5]);
	});

	it("a spread order visits every index once, and its first picks are far apart", () => {
		for (const n of [1, 2, 7, 40])
			expect([...spreadOrder(n, seededRandom("1", "x"))].sort((a, b) => a - b)).toEqual([...Array(n).keys()]);
		// The first three of 40, for any seed: golden-ratio steps leave gaps of at least 0.236 of the length.
		for (const seed of ["1", "2", "3", "4", "5", "6"]) {
			const [a, b, c] = spreadOrder(40, seededRandom(seed, "x"))
				.slice(0, 3)
				.sort((x, y) => x - y);
			expect(Math.min(b! - a!, c! - b!)).toBeGreaterThanOrEqual(9);
		}
	});
});

describe("the draw order", () => {
	const sessions = [session("a", 3, "advisor"), session("b", 20, "simulated"), session("c", 2, "advisor")];
	const order = drawOrder(sessions, "1");

	it("draws every point once: all real calls first, then the simulated ones", () => {
		expect(order).toHaveLength(25);
		expect(new Set(order.map((d) => d.key)).size).toBe(25);
		expect(order.slice(0, 5).every((d) => d.point.kind === "advisor")).toBe(true);
		expect(order.slice(5).every((d) => d.point.kind === "simulated")).toBe(true);
	});

	it("sessions take turns: the first two draws come from different sessions", () => {
		expect(new Set(order.slice(0, 2).map((d) => d.session.file)).size).toBe(2);
	});

	it("names a point by file and entry", () => {
		const first = order[0]!;
		expect(first.key).toBe(`${first.session.file}#${first.atEntryId}`);
		expect(first.atEntryId).toBe(first.session.events[first.point.upTo - 1]!.id);
	});

	it("is the same for the same seed and changes with it", () => {
		expect(drawOrder(sessions, "1").map((d) => d.key)).toEqual(order.map((d) => d.key));
		const others = ["2", "3", "4", "5"].map((seed) =>
			drawOrder(sessions, seed)
				.map((d) => d.key)
				.join(),
		);
		expect(others.some((keys) => keys !== order.map((d) => d.key).join())).toBe(true);
	});

	it("a session without any point gives none", () => {
		expect(drawOrder([session("empty", 0, "simulated")], "1")).toEqual([]);
	});
});
