/** Arguments that make a child `node` run TypeScript files (through tsx) with the GC exposed. */
export function tsxNodeArgs(): string[] {
  return ['--expose-gc', '--import', import.meta.resolve('tsx')];
}
