/**
 * The check a new assignment starts with: Python code, with its docstring and assert message in
 * the teacher's language (JSON quotes a string as Python reads it).
 */
export function exampleCheck(doc: string, message: string): string {
  // internal: Python code, which stays as written; its words are the teacher's (doc, message).
  return `def check_total():\n    ${JSON.stringify(doc)}\n    assert total == 7654321, ${JSON.stringify(message)}\n`;
}
