/** "1 subscriber", "2,509 subscribers": the count with thousands separators and the noun that fits it. */
export function countOf(count: number, one: string, other: string) {
  return `${count.toLocaleString()} ${count === 1 ? one : other}`;
}
