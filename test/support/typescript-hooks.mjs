// Module hooks that let a child process of a test run the TypeScript sources as they are, the way
// ts-jest runs them inside Jest: a `.js` import of a sibling `.ts` file resolves to it, and `.ts`
// files are transpiled one by one (the sources build with isolatedModules, so no program is needed).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';
import ts from 'typescript';

const tsconfig = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));
const { options } = ts.parseJsonConfigFileContent(
  ts.readConfigFile(tsconfig, ts.sys.readFile).config,
  ts.sys,
  fileURLToPath(new URL('../..', import.meta.url)),
);
// ES modules whatever the file: the package is `"type": "module"`, which one file alone cannot tell.
const compilerOptions = {
  ...options,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  sourceMap: false,
  declaration: false,
  isolatedModules: true,
};

export function resolve(specifier, context, next) {
  if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const source = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
    if (existsSync(source)) return { url: source.href, shortCircuit: true };
  }
  return next(specifier, context);
}

export function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const fileName = fileURLToPath(url);
  const { outputText } = ts.transpileModule(readFileSync(fileName, 'utf8'), { compilerOptions, fileName });
  return { format: 'module', source: outputText, shortCircuit: true };
}
