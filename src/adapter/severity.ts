/** The verdict parser is pure; it lives in the render layer so the review delivery rules can use it. */
export { parseSeverity, reviewSeverity } from "../render/severity.ts";
