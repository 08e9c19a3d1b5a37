/**
 * One stop request often arrives as two signals a moment apart: npm forwards the
 * SIGTERM or SIGINT that systemd or the terminal also sent to the whole group.
 * A repeat within this window is the same request, not an "exit now".
 */
const echoWindowMs = 250;
export const isEcho = (firstAt: number, at: number): boolean => at - firstAt < echoWindowMs;
