#!/usr/bin/env node
// The desk's words come from its catalogues only (issue 41). Fails (exit 1) when:
//  - a catalogue (src/i18n/messages/<tag>.json) lacks a key English has, has one English lacks,
//    or a message's arguments ({count}, {name}) differ from English's;
//  - a component or module shows a literal text a user would read: a text node, a title,
//    placeholder, aria-label, alt or label attribute, or a string in code that reads as words
//    (two words, or a capitalised word), anywhere but as a key given to t().
// `node scripts/check-words.mjs` (from ui/); the vitest suite runs it too (src/i18n/words.test.ts).

import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'svelte/compiler';
import { IntlMessageFormat } from 'intl-messageformat';
import { parse as parseIcu, TYPE } from '@formatjs/icu-messageformat-parser';

const ui = fileURLToPath(new URL('..', import.meta.url));
const src = join(ui, 'src');
const messages = join(src, 'i18n', 'messages');

/** Texts that read the same in every language: names, units, codes, marks. */
const SAME_EVERYWHERE = new Set(['Packdesk', 'PDF', 'ZPL', 'PNG', 'CSV', 'JSON', 'kg', 'lb', 'g', 'oz', 'cm', 'in', 'mm', 'OK', 'ID', 'URL', 'DPI', 'PIN', 'API', 'HTTPS', 'SFTP', 'IPP', 'CUPS', 'ZPL II', 'A4', 'A6', '4x6', 'EUR', 'GBP', 'USD', 'PostgreSQL', 'SQLite', 'Packdesk API', 'Esc', 'Enter', 'Tab', 'F2', 'Alt', 'Ctrl', 'Bearer', 'Alt+']);

/** Attributes whose fixed text a user reads. */
const READ_ATTRIBUTES = new Set(['title', 'placeholder', 'aria-label', 'alt', 'label', 'aria-description']);
/** Attributes whose values are for the machine (their expressions are not read). */
const MACHINE_ATTRIBUTE = /^(class|style|id|for|type|name|href|src|role|autocomplete|inputmode|pattern|method|rel|target|accept|lang|viewBox|fill|stroke|d|x|y|x1|x2|y1|y2|width|height|transform|text-anchor|font-size|font-weight|dominant-baseline|min|max|step|key|data-.*|on.*|bind:.*|class:.*|aria-current|aria-controls|aria-describedby|aria-labelledby|aria-live|tabindex|download|autofocus|spellcheck|list|form|enterkeyhint|dir)$/;

/** Calls whose first argument is a catalogue key or a machine's string, not words. */
const KEY_CALLS = new Set(['t', 'hasText', 'querySelector', 'querySelectorAll', 'getItem', 'setItem', 'removeItem', 'addEventListener', 'removeEventListener', 'getAttribute', 'setAttribute', 'closest', 'matches', 'fetch', 'call', 'download', 'play', 'get', 'set', 'has', 'log', 'warn', 'error', 'debug', 'info']);

/** Whether a string in code reads as words a user would see. */
function readsAsWords(s) {
  const text = s.trim();
  if (!text || SAME_EVERYWHERE.has(text)) return false;
  if (/^[a-z0-9_.:/-]+$/.test(text)) return false; // keys, ids, paths, kinds
  if (/^[/.#[]|^https?:|^\w+:\/\/|[{}<>=]|^\S+\.(svelte|ts|js|json|pdf|zpl|csv)$/.test(text)) return false;
  if (/\p{L}{2,}\s+\p{L}{2,}/u.test(text)) return true;
  return /^\p{Lu}\p{Ll}{2,}/u.test(text);
}

function walk(node, visit, parent = null, key = '') {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) walk(n, visit, parent, key);
    return;
  }
  if (visit(node, parent, key) === false) return;
  for (const [k, v] of Object.entries(node)) {
    if (k === 'parent' || k === 'loc' || k === 'metadata') continue;
    if (v && typeof v === 'object') walk(v, visit, node, k);
  }
}

function lineOf(source, offset) {
  return source.slice(0, offset).split('\n').length;
}

/** Literal strings of code (a script, or an expression of the template) that read as words. */
function codeLiterals(program, source, found) {
  walk(program, (node, parent, key) => {
    if (typeof node.type !== 'string') return true;
    if (node.type.startsWith('TS')) return false;
    if (node.type === 'ImportDeclaration' || node.type === 'ExportAllDeclaration' || node.type === 'ImportExpression') return false;
    if (node.type === 'CallExpression') {
      const callee = node.callee.type === 'Identifier' ? node.callee.name : node.callee.type === 'MemberExpression' && node.callee.property.type === 'Identifier' ? node.callee.property.name : '';
      if (KEY_CALLS.has(callee)) {
        codeLiterals(node.arguments.slice(1), source, found);
        if (callee === 't' || callee === 'hasText') return false;
        return false;
      }
      if (node.callee.type === 'MemberExpression' && node.callee.object.type === 'Identifier' && node.callee.object.name === 'console') return false;
    }
    if (node.type === 'BinaryExpression' && /^[!=]==?$/.test(node.operator)) {
      for (const side of [node.left, node.right]) if (side.type !== 'Literal') codeLiterals(side, source, found);
      return false;
    }
    if (node.type === 'SwitchCase') {
      codeLiterals(node.consequent, source, found);
      return false;
    }
    if (node.type === 'Property' && !node.computed) {
      codeLiterals(node.value, source, found);
      return false;
    }
    if (node.type === 'MemberExpression' && node.computed && node.property.type === 'Literal') return false;
    if (node.type === 'Literal' && typeof node.value === 'string' && readsAsWords(node.value)) found.push([node.start, node.value]);
    if (node.type === 'TemplateElement' && readsAsWords(node.value.cooked ?? node.value.raw)) found.push([node.start, node.value.raw]);
    return true;
  });
}

/** Literal words of a Svelte component: text nodes, read attributes, strings of its code. */
function componentLiterals(source) {
  const ast = parse(source, { modern: true });
  const found = [];
  for (const script of [ast.instance, ast.module]) if (script) codeLiterals(script.content, source, found);
  const visit = (node) => {
    if (node.type === 'Comment') return false;
    if (node.type === 'Text') {
      const text = node.data.replace(/&\w+;/g, ' ').trim();
      if (/\p{L}{2,}/u.test(text) && !SAME_EVERYWHERE.has(text)) found.push([node.start, text]);
      return false;
    }
    if (node.type === 'Attribute') {
      const values = node.value === true ? [] : Array.isArray(node.value) ? node.value : [node.value];
      if (MACHINE_ATTRIBUTE.test(node.name)) return false;
      for (const v of values) {
        if (v.type === 'Text' && READ_ATTRIBUTES.has(node.name) && /\p{L}{2,}/u.test(v.data) && !SAME_EVERYWHERE.has(v.data.trim())) found.push([v.start, v.data]);
        if (v.type === 'ExpressionTag') codeLiterals(v.expression, source, found);
      }
      return false;
    }
    if (node.type === 'StyleDirective' || node.type === 'ClassDirective' || node.type === 'BindDirective' || node.type === 'OnDirective') return false;
    if (node.type === 'ExpressionTag' || node.type === 'RenderTag' || node.type === 'HtmlTag' || node.type === 'ConstTag') {
      codeLiterals(node.expression ?? node.declaration, source, found);
      return false;
    }
    if (node.type === 'IfBlock' || node.type === 'EachBlock' || node.type === 'AwaitBlock' || node.type === 'KeyBlock') {
      for (const k of ['test', 'expression']) if (node[k]) codeLiterals(node[k], source, found);
      for (const k of ['consequent', 'alternate', 'body', 'fallback', 'pending', 'then', 'catch', 'fragment']) if (node[k]) walk(node[k], visit, node, k);
      return false;
    }
    return true;
  };
  walk(ast.fragment, visit);
  return found.map(([at, text]) => [lineOf(source, at), text]);
}

/** Literal words of a TypeScript module, read by the same rules as a component's script. */
function moduleLiterals(source) {
  const wrapped = `<script lang="ts">${source}</script>`;
  const ast = parse(wrapped, { modern: true });
  const found = [];
  codeLiterals(ast.instance.content, wrapped, found);
  return found.map(([at, text]) => [lineOf(wrapped, at), text]);
}

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : files(path);
    return /\.svelte$|(?<!\.test|\.d)\.ts$/.test(name) ? [path] : [];
  });
}

/** Every literal a user would read, as `file:line: text`. */
export function literalWords() {
  const problems = [];
  for (const path of files(src)) {
    const source = readFileSync(path, 'utf8');
    if (/^\/\/ words-check: no words here/m.test(source)) continue;
    const found = path.endsWith('.svelte') ? componentLiterals(source) : moduleLiterals(source);
    for (const [line, text] of found) problems.push(`${relative(ui, path)}:${line}: ${JSON.stringify(text.trim().slice(0, 80))}`);
  }
  return problems;
}

function flatten(obj, prefix = '', into = {}) {
  for (const [k, v] of Object.entries(obj)) {
    if (v && typeof v === 'object') flatten(v, `${prefix}${k}.`, into);
    else into[`${prefix}${k}`] = String(v);
  }
  return into;
}

/** The names of a message's arguments (`{count, plural, …}` and `{name}`), read by the ICU parser
 * (a select's or plural's option texts are no arguments). */
function argumentsOf(message) {
  const names = new Set();
  const walk = (elements) => {
    for (const e of elements) {
      if (e.value !== undefined && e.type !== TYPE.literal && e.type !== TYPE.pound) names.add(e.value);
      if (e.options) for (const o of Object.values(e.options)) walk(o.value);
      if (e.children) walk(e.children);
    }
  };
  try {
    walk(parseIcu(message));
  } catch {
    // not ICU: messageProblems() says so
  }
  return [...names].sort().join(',');
}

/** English's keys. */
function englishKeys() {
  return flatten(JSON.parse(readFileSync(join(messages, 'en.json'), 'utf8')));
}

/** Keys given to t() as they are written (`t('ship.title')`) that English has not: the screen
 * would show the key itself. */
export function unknownKeys() {
  const english = englishKeys();
  const problems = [];
  for (const path of files(src)) {
    const source = readFileSync(path, 'utf8');
    for (const m of source.matchAll(/\bt\(\s*'([A-Za-z0-9_.]+)'/g)) {
      if (!(m[1] in english)) problems.push(`${relative(ui, path)}:${lineOf(source, m.index)}: t('${m[1]}') is in no catalogue`);
    }
  }
  return problems;
}

/** Every key a catalogue lacks or has too many of, and every message whose arguments differ. */
export function catalogueProblems() {
  const english = flatten(JSON.parse(readFileSync(join(messages, 'en.json'), 'utf8')));
  const problems = [];
  for (const name of readdirSync(messages).filter((n) => n.endsWith('.json') && n !== 'en.json')) {
    const other = flatten(JSON.parse(readFileSync(join(messages, name), 'utf8')));
    for (const k of Object.keys(english)) {
      if (!(k in other)) problems.push(`${name}: lacks ${k}`);
      else if (argumentsOf(english[k]) !== argumentsOf(other[k])) problems.push(`${name}: ${k} has arguments {${argumentsOf(other[k])}}, English {${argumentsOf(english[k])}}`);
    }
    for (const k of Object.keys(other)) if (!(k in english)) problems.push(`${name}: has ${k}, which English has not`);
  }
  return problems;
}

/** Every message that is not ICU MessageFormat its language can read. */
export function messageProblems() {
  const problems = [];
  for (const name of readdirSync(messages).filter((n) => n.endsWith('.json'))) {
    const tag = name.replace('.json', '');
    for (const [k, v] of Object.entries(flatten(JSON.parse(readFileSync(join(messages, name), 'utf8'))))) {
      try {
        new IntlMessageFormat(v, tag);
      } catch (e) {
        problems.push(`${name}: ${k}: ${e.message}`);
      }
    }
  }
  return problems;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const only = process.argv.slice(2);
  const literal = literalWords().filter((p) => !only.length || only.some((f) => p.includes(f)));
  const catalogue = only.length ? [] : [...catalogueProblems(), ...unknownKeys(), ...messageProblems()];
  for (const p of [...catalogue, ...literal]) console.log(p);
  console.log(`${catalogue.length} catalogue problems, ${literal.length} literal texts`);
  process.exit(catalogue.length + literal.length ? 1 : 0);
}
