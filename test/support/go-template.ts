/**
 * CAPI's reading of a ClusterClass patch's Go templates, as a test oracle: render with Go's
 * text/template and the sprig functions, then parse the output as YAML. Written from the rules, not
 * from the product's interpreter (modules/tenants/class-patches.ts), which a test compares with it.
 *
 * - sigs.k8s.io/cluster-api at the pinned clusterApi (v1.12; modules/versions/toolchain.json),
 *   internal/controllers/topology/cluster/patches/inline/json_patch_generator.go: renderValueTemplate parses the template with
 *   `template.New("tpl").Funcs(sprig.HermeticTxtFuncMap())` (default options: a missing map key is
 *   the invalid value, printed `<no value>`), executes it on the variables as JSON-decoded Go values
 *   (calculateTemplateData), and unmarshals the output with sigs.k8s.io/yaml (v1.6.0: go.yaml.in/
 *   yaml/v2, YAML 1.1); patchIsEnabled: a patch is enabled when that value is exactly `true`.
 * - Go text/template (exec.go): `if` takes Go truthiness (isTrue: false, 0, "", nil and empty
 *   slices and maps are false, the invalid value too); a field of a missing key is again the invalid
 *   value, a field of a nil interface is an error ("nil pointer evaluating"); an identifier given as
 *   an argument is a niladic function call; `not` is a builtin.
 * - github.com/Masterminds/sprig v3.3.0: `list` (list.go), `append` = push (list.go: a new list
 *   with the value at the end; errors on a non-list), `default` (defaults.go dfault: the default
 *   when the given value is `empty`), `toJson` (defaults.go: encoding/json Marshal; nil is `null`).
 *
 * Only the constructs above are supported; anything else throws, so a new construct in the class
 * needs its rule here, read from the same sources.
 */
import { parse as parseYaml } from 'yaml';

/** Go's invalid reflect.Value: what a missing map key evaluates to. */
const MISSING = Symbol('<no value>');
type Value = unknown;

type Node = { kind: 'text'; text: string } | { kind: 'print'; pipe: Pipe } | { kind: 'if'; pipe: Pipe; then: Node[]; else: Node[] };
type Operand = { kind: 'field'; path: string[] } | { kind: 'ident'; name: string } | { kind: 'string'; value: string } | { kind: 'sub'; pipe: Pipe };
type Command = Operand[];
type Pipe = Command[];

function tokenize(action: string): string[] {
  const tokens: string[] = [];
  const re = /\s*("(?:[^"\\]|\\.)*"|\(|\)|\||\.?[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*|\.)/y;
  let at = 0;
  while (at < action.length) {
    if (/^\s*$/.test(action.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(action);
    if (!m) throw new Error(`go-template: cannot read ${JSON.stringify(action.slice(at))}`);
    tokens.push(m[1]);
    at = re.lastIndex;
  }
  return tokens;
}

function parsePipe(tokens: string[], at: { i: number }): Pipe {
  const pipe: Pipe = [[]];
  while (at.i < tokens.length && tokens[at.i] !== ')') {
    const t = tokens[at.i++];
    if (t === '|') pipe.push([]);
    else if (t === '(') {
      pipe[pipe.length - 1].push({ kind: 'sub', pipe: parsePipe(tokens, at) });
      if (tokens[at.i++] !== ')') throw new Error('go-template: unclosed (');
    } else if (t.startsWith('"')) pipe[pipe.length - 1].push({ kind: 'string', value: JSON.parse(t) as string });
    else if (t === '.') pipe[pipe.length - 1].push({ kind: 'field', path: [] });
    else if (t.startsWith('.')) pipe[pipe.length - 1].push({ kind: 'field', path: t.slice(1).split('.') });
    else pipe[pipe.length - 1].push({ kind: 'ident', name: t });
  }
  if (pipe.some((c) => c.length === 0)) throw new Error('go-template: empty command');
  return pipe;
}

function parse(template: string): Node[] {
  const root: Node[] = [];
  const stack: { nodes: Node[]; node?: Extract<Node, { kind: 'if' }>; inElse?: boolean }[] = [{ nodes: root }];
  const re = /\{\{(-?)(.*?)(-?)\}\}/gs;
  let last = 0;
  for (const m of template.matchAll(re)) {
    if (m[1] || m[3]) throw new Error('go-template: trim markers are not supported');
    const top = stack[stack.length - 1];
    if (m.index! > last) top.nodes.push({ kind: 'text', text: template.slice(last, m.index) });
    last = m.index! + m[0].length;
    const tokens = tokenize(m[2]);
    if (tokens[0] === 'if') {
      const node: Extract<Node, { kind: 'if' }> = { kind: 'if', pipe: parsePipe(tokens.slice(1), { i: 0 }), then: [], else: [] };
      top.nodes.push(node);
      stack.push({ nodes: node.then, node });
    } else if (tokens[0] === 'else' && tokens.length === 1) {
      if (!top.node || top.inElse) throw new Error('go-template: else outside if');
      top.nodes = top.node.else;
      top.inElse = true;
    } else if (tokens[0] === 'end' && tokens.length === 1) {
      if (stack.length === 1) throw new Error('go-template: end outside if');
      stack.pop();
    } else if (['range', 'with', 'define', 'template', 'block'].includes(tokens[0])) {
      throw new Error(`go-template: ${tokens[0]} is not supported`);
    } else {
      const at = { i: 0 };
      const pipe = parsePipe(tokens, at);
      if (at.i !== tokens.length) throw new Error('go-template: unbalanced )');
      top.nodes.push({ kind: 'print', pipe });
    }
  }
  if (stack.length !== 1) throw new Error('go-template: missing end');
  if (last < template.length) root.push({ kind: 'text', text: template.slice(last) });
  return root;
}

/** text/template isTrue. */
function isTrue(v: Value): boolean {
  if (v === MISSING || v === null || v === undefined) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string' || Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  throw new Error(`go-template: if cannot use ${String(v)}`);
}

/** sprig empty. */
const empty = (v: Value): boolean => !isTrue(v);

/** The value as JSON would hold it (MISSING, an invalid value, is passed to functions as nil). */
const asArg = (v: Value): Value => (v === MISSING ? null : v);

const FUNCS: Record<string, (...args: Value[]) => Value> = {
  not: (v) => !isTrue(v),
  list: (...items) => items.map(asArg),
  default: (d, given) => (given === undefined || empty(given) ? d : given),
  append: (list, v) => {
    if (!Array.isArray(list)) throw new Error(`go-template: Cannot push on type ${list === null ? 'nil' : typeof list}`);
    return [...list, asArg(v)];
  },
  toJson: (v) => JSON.stringify(asArg(v)),
};

function field(dot: Value, path: string[]): Value {
  let v = dot;
  for (const name of path) {
    if (v === MISSING) return MISSING;
    if (v === null) throw new Error(`go-template: nil pointer evaluating interface {}.${name}`);
    if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`go-template: can't evaluate field ${name} in type ${typeof v}`);
    v = Object.prototype.hasOwnProperty.call(v, name) ? (v as Record<string, unknown>)[name] : MISSING;
  }
  return v;
}

function evalOperand(op: Operand, dot: Value, asArgument: boolean): Value {
  if (op.kind === 'field') return field(dot, op.path);
  if (op.kind === 'string') return op.value;
  if (op.kind === 'sub') return evalPipe(op.pipe, dot);
  if (!asArgument) throw new Error('go-template: internal');
  return call(op.name, []);
}

function call(name: string, args: Value[]): Value {
  const f = FUNCS[name];
  if (!f) throw new Error(`go-template: function ${JSON.stringify(name)} not defined here`);
  return f(...args);
}

function evalPipe(pipe: Pipe, dot: Value): Value {
  let prev: Value | typeof NONE = NONE;
  for (const command of pipe) {
    const [head, ...rest] = command;
    const args = rest.map((a) => evalOperand(a, dot, true));
    if (prev !== NONE) args.push(prev);
    if (head.kind === 'ident') prev = call(head.name, args);
    else {
      if (args.length > 0) throw new Error('go-template: arguments to a non-function');
      prev = evalOperand(head, dot, false);
    }
  }
  return prev;
}
const NONE = Symbol('none');

/** fmt.Sprint of a JSON-decoded Go value. */
function print(v: Value): string {
  if (v === MISSING) return '<no value>';
  if (v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(print).join(' ')}]`;
  if (typeof v === 'object')
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${print((v as Record<string, unknown>)[k])}`)
      .join(' ')}]`;
  throw new Error(`go-template: cannot print ${String(v)}`);
}

function execute(nodes: Node[], dot: Value): string {
  let out = '';
  for (const n of nodes) {
    if (n.kind === 'text') out += n.text;
    else if (n.kind === 'print') out += print(evalPipe(n.pipe, dot));
    else out += execute(isTrue(evalPipe(n.pipe, dot)) ? n.then : n.else, dot);
  }
  return out;
}

/** The template's output for these variables (text/template Execute). */
export function renderGoTemplate(template: string, variables: Record<string, unknown>): string {
  return execute(parse(template), JSON.parse(JSON.stringify(variables)));
}

/** What CAPI makes of a `valueFrom.template`: the rendered text as YAML (an empty output is null). */
export function capiTemplateValue(template: string, variables: Record<string, unknown>): unknown {
  return parseYaml(renderGoTemplate(template, variables), { version: '1.1' }) ?? null;
}

/** Whether CAPI enables a patch with this `enabledIf` (an absent one always holds). */
export function capiPatchEnabled(enabledIf: string | undefined, variables: Record<string, unknown>): boolean {
  if (!enabledIf) return true;
  return capiTemplateValue(enabledIf, variables) === true;
}
