/**
 * The consultation's deadline (`budget.timeoutSec`): one clock over the whole
 * consultation — every request, retry and investigation round — that can be paused while the
 * user looks at the budget confirmation (the user's reading time is not the advisor's).
 *
 * Built on the global `setTimeout` and an injected `now`, so fake timers drive it in tests
 * (`AbortSignal.timeout` cannot be paused and ignores fake timers). The timer is unref'd and
 * cleared by `dispose`, so a finished consultation never keeps the process alive.
 */

export interface Deadline {
	/** Aborts when the deadline passes; never aborts without a timeout. */
	readonly signal: AbortSignal;
	/** The deadline has passed (as opposed to any other abort). */
	expired(): boolean;
	/** Milliseconds the clock has run since the start, pauses excluded. */
	elapsed(): number;
	/** Stops the clock; pauses nest. */
	pause(): void;
	/** Undoes one `pause`; the clock runs again when the last one is undone. */
	resume(): void;
	/** Runs `work` with the clock stopped. */
	paused<T>(work: () => Promise<T>): Promise<T>;
	/** Clears the timer. */
	dispose(): void;
}

type Timer = ReturnType<typeof setTimeout>;

export function createDeadline(timeoutMs: number | undefined, now: () => number = Date.now): Deadline {
	const controller = new AbortController();
	let ranBefore = 0;
	let runningSince: number | undefined = now();
	let pauses = 0;
	let fired = false;
	let timer: Timer | undefined;

	const elapsed = () => ranBefore + (runningSince === undefined ? 0 : Math.max(0, now() - runningSince));
	const clear = () => {
		if (timer !== undefined) clearTimeout(timer);
		timer = undefined;
	};
	const arm = () => {
		if (timeoutMs === undefined || fired) return;
		clear();
		const left = Math.max(0, timeoutMs - elapsed());
		timer = setTimeout(() => {
			timer = undefined;
			fired = true;
			controller.abort(new Error("timeout"));
		}, left);
		(timer as { unref?: () => void }).unref?.();
	};
	arm();

	const deadline: Deadline = {
		signal: controller.signal,
		expired: () => fired,
		elapsed,
		pause() {
			pauses++;
			if (pauses > 1 || runningSince === undefined) return;
			ranBefore += Math.max(0, now() - runningSince);
			runningSince = undefined;
			clear();
		},
		resume() {
			if (pauses === 0) return;
			pauses--;
			if (pauses > 0) return;
			runningSince = now();
			arm();
		},
		async paused(work) {
			deadline.pause();
			try {
				return await work();
			} finally {
				deadline.resume();
			}
		},
		dispose() {
			clear();
		},
	};
	return deadline;
}
