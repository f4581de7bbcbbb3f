// The shapes of src/types.ts (z.output / z.input of core's zod schemas) as plain TypeScript
// declarations: each exported type alias printed structurally by the checker, so the package's
// declarations need neither zod nor core/.
import ts from "typescript";

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function flattenTypes(program, file) {
  const checker = program.getTypeChecker();
  const sf = program.getSourceFile(file);
  if (!sf) throw new Error(`no ${file} in the program`);
  const out = ["// Generated from core/'s zod schemas (packages/client/src/types.ts) by scripts/flatten-types.mjs."];

  const print = (type, node, depth) => {
    if (depth > 20) throw new Error("type too deep to flatten");
    const f = type.flags;
    const simple = ts.TypeFlags.String | ts.TypeFlags.Number | ts.TypeFlags.Boolean | ts.TypeFlags.Null | ts.TypeFlags.Undefined | ts.TypeFlags.Any | ts.TypeFlags.Unknown |
      ts.TypeFlags.BigInt | ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral | ts.TypeFlags.BooleanLiteral | ts.TypeFlags.Never | ts.TypeFlags.Void | ts.TypeFlags.TemplateLiteral;
    if (f & simple) return checker.typeToString(type);
    if (type.isUnion()) {
      let parts = type.types.map((t) => print(t, node, depth + 1));
      if (parts.includes("true") && parts.includes("false")) parts = [...parts.filter((p) => p !== "true" && p !== "false"), "boolean"];
      return [...new Set(parts)].map((p) => (p.includes("=>") ? `(${p})` : p)).join(" | ");
    }
    if (checker.isArrayType(type)) {
      const [el] = checker.getTypeArguments(type);
      return `Array<${print(el, node, depth + 1)}>`;
    }
    if (checker.isTupleType(type)) return `[${checker.getTypeArguments(type).map((t) => print(t, node, depth + 1)).join(", ")}]`;
    if (f & ts.TypeFlags.Object || type.isIntersection()) {
      const members = [];
      for (const info of checker.getIndexInfosOfType(type)) members.push(`[key: ${checker.typeToString(info.keyType)}]: ${print(info.type, node, depth + 1)}`);
      for (const p of checker.getPropertiesOfType(type)) {
        const pt = checker.getTypeOfSymbolAtLocation(p, node);
        const opt = p.flags & ts.SymbolFlags.Optional ? "?" : "";
        const name = IDENT.test(p.name) ? p.name : JSON.stringify(p.name);
        members.push(`${name}${opt}: ${print(pt, node, depth + 1)}`);
      }
      if (checker.getSignaturesOfType(type, ts.SignatureKind.Call).length) throw new Error(`cannot flatten a function type: ${checker.typeToString(type)}`);
      return `{ ${members.join("; ")} }`;
    }
    throw new Error(`cannot flatten ${checker.typeToString(type)} (flags ${f})`);
  };

  for (const st of sf.statements) {
    if (!ts.isTypeAliasDeclaration(st) || !st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
    const type = checker.getTypeAtLocation(st.name);
    const doc = ts.getJSDocCommentsAndTags(st).map((d) => d.getText(sf)).join("\n");
    if (doc) out.push(doc);
    out.push(`export type ${st.name.text} = ${print(type, st, 0)};`);
  }
  return out.join("\n") + "\n";
}
