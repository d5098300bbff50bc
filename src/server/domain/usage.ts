/** Usage arithmetic: minutes = audio seconds / 60, kept as integer hundredths of a minute. */
export function secondsToCentiminutes(seconds: number): number {
  return Math.max(0, Math.ceil((seconds / 60) * 100 - 1e-9));
}

export function centiminutesToMinutes(centiminutes: number): number {
  return Math.round(centiminutes) / 100;
}

export function minutesToCentiminutes(minutes: number): number {
  return Math.round(minutes * 100);
}

/** The usage month of a moment: its calendar month in UTC, `YYYY-MM`. */
export function usageMonth(at: number): string {
  return new Date(at).toISOString().slice(0, 7);
}
