/**
 * Names every skipped test and why, after vitest's own summary (which only counts them), so a run
 * that skipped a host or the shared sessions never reads as a full pass (docs/architecture.md, "Testing"). The why
 * is the note a test gave `ctx.skip(note)`; a test skipped without one says so. Under `-t`, tests
 * the name filter left out are not listed: only those that skipped themselves with a note.
 */

import type { Reporter, TestModule, Vitest } from "vitest/node";

export default class SkippedReporter implements Reporter {
	private vitest: Vitest | undefined;

	onInit(vitest: Vitest): void {
		this.vitest = vitest;
	}

	onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
		const filtered = this.vitest?.config.testNamePattern !== undefined;
		const lines: string[] = [];
		for (const module of modules) {
			for (const test of module.children.allTests("skipped")) {
				const result = test.result();
				const note = result.state === "skipped" ? result.note : undefined;
				if (note === undefined && (filtered || test.options.mode === "todo")) continue;
				lines.push(`  ${module.relativeModuleId} > ${test.fullName}: ${note ?? "skipped without a reason"}`);
			}
		}
		if (lines.length === 0) return;
		const log = (text: string) => (this.vitest === undefined ? console.log(text) : this.vitest.logger.log(text));
		log(`\nSkipped (${lines.length}), and why:\n${lines.join("\n")}`);
	}
}
