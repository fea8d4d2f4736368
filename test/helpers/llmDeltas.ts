/** 2,000 deltas of 1 to 5 characters, a paragraph break closing every 200th. */
export function llmDeltas(count = 2000, breakEvery = 200): string[] {
  const words = ['the ', 'plan ', 'is ', 'to ', 'read', ' it', ', ', 'then ', 'w', 'rite.'];
  const deltas: string[] = [];
  for (let i = 1; i <= count; i++) {
    const word = words[(i * 7) % words.length]!;
    deltas.push(i % breakEvery === 0 ? `${word.trimEnd().slice(0, 3)}\n\n` : word);
  }
  return deltas;
}
