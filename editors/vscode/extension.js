// The VS Code client of the lastbreath language server: it starts 'lastbreath lsp' (the command and
// its arguments are settings) for .fg files, and adds two commands: explain an error code (the
// server's text of 'lastbreath explain-error CODE', in a new editor) and restart the server.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind, ExecuteCommandRequest } = require("vscode-languageclient/node");

let client;

function serverOptions() {
  const config = vscode.workspace.getConfiguration("lastbreath");
  const command = config.get("server.command", "lastbreath");
  const args = config.get("server.args", ["lsp"]);
  return { command, args, transport: TransportKind.stdio };
}

async function start(context) {
  client = new LanguageClient(
    "lastbreath",
    "lastbreath content",
    serverOptions(),
    {
      documentSelector: [{ scheme: "file", language: "fg" }, { scheme: "untitled", language: "fg" }],
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.fg") },
    },
  );
  await client.start();
}

async function explain(code) {
  if (typeof code !== "string") {
    code = await vscode.window.showInputBox({ prompt: "An error code (E207, W201…)" });
    if (!code) {
      return;
    }
  }
  const text = await client.sendRequest(ExecuteCommandRequest.type, {
    command: "lastbreath.server.explainError",
    arguments: [code],
  });
  const doc = await vscode.workspace.openTextDocument({ content: String(text), language: "markdown" });
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}

async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand("lastbreath.explainError", explain),
    vscode.commands.registerCommand("lastbreath.restartServer", async () => {
      if (client) {
        await client.stop();
      }
      await start(context);
    }),
  );
  try {
    await start(context);
  } catch (err) {
    vscode.window.showErrorMessage(
      `lastbreath: the language server did not start (${err}). Install it with pip install 'lastbreath[lsp]' ` +
        "and set lastbreath.server.command to the lastbreath command of that environment.",
    );
  }
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
