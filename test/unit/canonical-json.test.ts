import { describe, expect, test } from 'vitest';
import { canonicalJson } from '../../src/core/canonical-json.js';

describe('canonicalJson', () => {
  test('sorts members by name, drops undefined members, keeps arrays in order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null }, z: undefined })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
    expect(canonicalJson([undefined, 'x', true, 1.5, {}, []])).toBe('[null,"x",true,1.5,{},[]]');
    expect(canonicalJson({ 'a"b': '\u2028\n', '': 0 })).toBe('{"":0,"a\\"b":"\u2028\\n"}');
    expect(canonicalJson('text')).toBe('"text"');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson(undefined)).toBe('null');
  });

  test('key order and whitespace do not matter; a changed value does', () => {
    const a = JSON.parse('{"x": [1, {"q": 1, "p": 2}], "y": "v"}');
    const b = JSON.parse('{ "y":"v","x":[1,{"p":2,"q":1}] }');
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).not.toBe(canonicalJson({ ...b, y: 'w' }));
  });

  test('a structure nested 20,000 levels deep is written without running out of stack', () => {
    const depth = 20_000;
    let arrays: unknown = 1;
    let objects: unknown = 1;
    for (let i = 0; i < depth; i++) {
      arrays = [arrays];
      objects = { b: objects, a: i === 0 ? [] : undefined };
    }
    expect(canonicalJson(arrays)).toBe(`${'['.repeat(depth)}1${']'.repeat(depth)}`);
    expect(canonicalJson(objects)).toBe(`${'{"b":'.repeat(depth - 1)}{"a":[],"b":1}${'}'.repeat(depth - 1)}`);
  });
});
