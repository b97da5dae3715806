// The TypeScript SDK's stateless streamable HTTP server with the same `echo` tool, for
// benches/serve_load.sh: a server and a transport per POST, as the SDK's stateless
// example does, JSON responses. Argument: the port.
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const port = Number(process.argv[2]);

function echoServer() {
  const server = new McpServer({ name: 'echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Say the text back.', inputSchema: { message: z.string() } },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  return server;
}

http
  .createServer(async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = JSON.parse(Buffer.concat(chunks).toString());
    const server = echoServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  })
  .listen(port, '127.0.0.1');
