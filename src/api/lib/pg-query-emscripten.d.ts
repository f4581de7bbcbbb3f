/** Postgres' parser compiled to WebAssembly (a dependency of Ponder's SQL allow-list); untyped. */
declare module "pg-query-emscripten" {
  const load: () => Promise<{ parse: (sql: string) => { parse_tree: { stmts: { stmt?: unknown }[] }; error: { message: string } | null } }>;
  export default load;
}
