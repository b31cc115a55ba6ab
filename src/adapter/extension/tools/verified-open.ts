/**
 * Opening a file or folder the path policy allows, and proving afterwards that what was
 * opened is that file. The policy check resolves a path, then the open resolves it again: in
 * between, a folder on the way can be swapped for a symlink to somewhere outside, and the open
 * lands there. So the check that counts is made on the opened descriptor:
 *
 * - Linux: `/proc/self/fd/N` names the file the descriptor really refers to, as the kernel
 *   resolved it at open time; that name is judged by the same fence and deny list, as a string,
 *   without touching the file system again (so nothing can be swapped under this check).
 * - Elsewhere: the path is judged again after the open and its file must be the opened one
 *   (same device and inode). A swap timed between those two steps could still pass there;
 *   no openat() walk is available to Node to close that gap.
 *
 * The last component is opened with O_NOFOLLOW (a link there is refused outright), and with
 * O_NONBLOCK so a FIFO put in place of a file cannot block the open.
 */

import { constants } from "node:fs";
import { type FileHandle, open, readlink, stat } from "node:fs/promises";
import { TOOL_REFUSAL } from "../../../render/index.ts";
import { allowedPath, insideRelative, refusalText, shownPath, type Workspace } from "./workspace.ts";

export type OpenKind = "file" | "directory";

export interface VerifiedHandle {
	readonly handle: FileHandle;
	/** The real path that was opened (inside the workspace, not denied). */
	readonly real: string;
	/** Size in bytes, from the opened descriptor. */
	readonly size: number;
}

/** O_NOFOLLOW and O_DIRECTORY are POSIX; on Windows Node defines neither, and 0 changes nothing. */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;

/**
 * Opens `absolute` read-only if the path policy allows it and it is a `kind`, and verifies
 * the opened descriptor. Throws an Error whose message is the refusal text for the advisor.
 */
export async function openVerified(ws: Workspace, absolute: string, kind: OpenKind): Promise<VerifiedHandle> {
	const real = await allowedPath(ws, absolute);
	const shown = shownPath(ws, real);
	let handle: FileHandle;
	try {
		handle = await open(real, constants.O_RDONLY | NOFOLLOW | NONBLOCK | (kind === "directory" ? DIRECTORY : 0));
	} catch (e) {
		throw new Error(openFailure(e, shown, kind));
	}
	try {
		const opened = await handle.stat({ bigint: true });
		if (kind === "file" ? !opened.isFile() : !opened.isDirectory()) {
			throw new Error(kind === "file" ? TOOL_REFUSAL.notRegularFile(shown) : TOOL_REFUSAL.notFound(shown));
		}
		const refusal = await verifyDescriptor(ws, handle, real, opened.dev, opened.ino);
		if (refusal !== undefined) throw new Error(refusal);
		return { handle, real, size: Number(opened.size) };
	} catch (e) {
		await handle.close();
		throw e;
	}
}

/** undefined when the descriptor is the allowed file; otherwise the refusal text. */
async function verifyDescriptor(
	ws: Workspace,
	handle: FileHandle,
	real: string,
	dev: bigint,
	ino: bigint,
): Promise<string | undefined> {
	const shown = shownPath(ws, real);
	const kernelPath = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
	if (kernelPath?.startsWith("/")) {
		// A file unlinked since it was opened is named "<path> (deleted)": not a name to judge.
		if (kernelPath.endsWith(" (deleted)")) return TOOL_REFUSAL.notFound(shown);
		const rel = insideRelative(ws.realCwd, kernelPath);
		if (rel === undefined) return TOOL_REFUSAL.outside(shown);
		if (ws.deniedBy(rel) !== undefined) return TOOL_REFUSAL.denied(shown);
		return undefined;
	}
	const again = await ws.checkAbsolute(real);
	if (again.kind !== "ok") return refusalText(again, shown);
	const named = await stat(again.absolute, { bigint: true }).catch(() => undefined);
	if (named === undefined || named.dev !== dev || named.ino !== ino) return TOOL_REFUSAL.outside(shown);
	return undefined;
}

function openFailure(e: unknown, shown: string, kind: OpenKind): string {
	switch ((e as NodeJS.ErrnoException | undefined)?.code) {
		case "ELOOP":
			// The last component turned into a symlink after the policy check resolved it.
			return TOOL_REFUSAL.outside(shown);
		case "ENOTDIR":
			return kind === "file" ? TOOL_REFUSAL.notFound(shown) : TOOL_REFUSAL.notRegularFile(shown);
		case "EISDIR":
		case "ENXIO":
		case "ENODEV":
			return TOOL_REFUSAL.notRegularFile(shown);
		default:
			return TOOL_REFUSAL.notFound(shown);
	}
}

/** The descriptor as a path the file system functions accept (`readdir` of exactly this folder). */
export function descriptorPath(handle: FileHandle): string | undefined {
	return process.platform === "linux" ? `/proc/self/fd/${handle.fd}` : undefined;
}
