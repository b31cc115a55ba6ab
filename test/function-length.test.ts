/**
 * No function in src/ is over 100 lines (docs/architecture.md): a longer one hides the seams it
 * should be cut along. Measured on TypeScript's own syntax tree (the typescript package's API),
 * from the line a function starts on to the line its body closes, nested functions counted apart.
 */
import path from "node:path";
import { SyntaxKind } from "typescript/unstable/ast";
import { API } from "typescript/unstable/sync";
import { afterAll, describe, expect, it } from "vitest";

/** The limit holds for every function of src/, adapter included: there is no list of exceptions. */
const MAX_LINES = 100;
const repoRoot = path.resolve(import.meta.dirname, "..");

const FUNCTION_KINDS: ReadonlySet<SyntaxKind> = new Set([
	SyntaxKind.FunctionDeclaration,
	SyntaxKind.FunctionExpression,
	SyntaxKind.ArrowFunction,
	SyntaxKind.MethodDeclaration,
	SyntaxKind.GetAccessor,
	SyntaxKind.SetAccessor,
	SyntaxKind.Constructor,
]);

interface Measured {
	/** `file:name`; an anonymous function is named after what holds it. */
	where: string;
	line: number;
	lines: number;
}

// The API's nodes are a generated union; the walk needs only these members of them.
interface WalkNode {
	kind: SyntaxKind;
	pos: number;
	end: number;
	body?: unknown;
	name?: { text?: string };
	getStart(): number;
	forEachChild(visit: (child: WalkNode) => void): void;
}

const api = new API({ cwd: repoRoot });
afterAll(() => api.close());

function measureSources(): Measured[] {
	const project = api.updateSnapshot({ openProjects: [path.join(repoRoot, "tsconfig.json")] }).getProjects()[0]!;
	const program = project.program;
	const out: Measured[] = [];
	for (const fileName of program.getSourceFileNames()) {
		const file = path.relative(repoRoot, fileName);
		if (!file.startsWith(`src${path.sep}`)) continue;
		const source = program.getSourceFile(fileName)!;
		const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
		const visit = (node: WalkNode, holder: string | undefined): void => {
			let name = holder;
			if (node.kind === SyntaxKind.VariableDeclaration || node.kind === SyntaxKind.PropertyAssignment)
				name = node.name?.text ?? holder;
			if (FUNCTION_KINDS.has(node.kind) && node.body !== undefined) {
				name = node.name?.text ?? holder ?? "(anonymous)";
				const line = lineOf(node.getStart());
				out.push({ where: `${file}:${name}`, line, lines: lineOf(node.end) - line + 1 });
			}
			node.forEachChild((child) => visit(child, name));
		};
		visit(source as unknown as WalkNode, undefined);
	}
	return out;
}

describe("function length", () => {
	const measured = measureSources();

	it("measures every function of src/ (the walk itself works)", () => {
		expect(measured.length).toBeGreaterThan(500);
		// A known function, measured exactly.
		expect(measured.find((m) => m.where === "src/events/never.ts:assertNever")?.lines).toBe(3);
	});

	it(`no function in src/ is over ${MAX_LINES} lines`, () => {
		const long = measured
			.filter((m) => m.lines > MAX_LINES)
			.map((m) => `${m.where} (line ${m.line}): ${m.lines} lines`);
		expect(long).toEqual([]);
	});
});
