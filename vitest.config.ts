import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts", "bench/**/*.test.ts"],
		// A temp dir of the run's own, checked for leftovers at the end (test/support/temp-root.ts).
		globalSetup: ["test/support/temp-root.ts"],
		// Properties from one seed: the same runs under any load (test/support/fast-check-seed.ts).
		setupFiles: ["test/support/fast-check-seed.ts"],
		// Vitest's own output, then every skipped test named with its reason (test/support/skipped-reporter.ts).
		reporters: ["default", "./test/support/skipped-reporter.ts"],
		testTimeout: 60_000,
		hookTimeout: 60_000,
		// End-to-end tests start real Pi sessions; two workers match the 2-core CI machine.
		pool: "forks",
		maxWorkers: 2,
	},
});
