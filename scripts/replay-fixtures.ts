/**
 * Rewrites test/fixtures/replay-report/: replay's whole output on the bundled samples, which
 * test/adapter/lab/replay-command.report.test.ts compares against. Run it only in a commit that
 * changes that output on purpose, and say why in that commit.
 */

import { FIXTURES_DIR, PINNED, writeFixtures } from "../test/support/replay-fixtures.ts";

await writeFixtures();
console.log(`wrote ${PINNED.map((p) => p.file).join(", ")} in ${FIXTURES_DIR}`);
