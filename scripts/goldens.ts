/**
 * Rewrites test/fixtures/goldens/requests.json: the per-point request fingerprints the
 * request-bytes test compares against. Run it only in a commit that changes the request's
 * bytes on purpose, and say why in that commit.
 */

import { writeFileSync } from "node:fs";
import { computeGoldens, GOLDENS_FILE } from "../test/support/goldens.ts";

const goldens = computeGoldens();
writeFileSync(GOLDENS_FILE, `${JSON.stringify(goldens, null, "\t")}\n`);
let points = 0;
for (const list of Object.values(goldens)) points += list.length;
console.log(`wrote ${GOLDENS_FILE}: ${Object.keys(goldens).length} sessions, ${points} points`);
