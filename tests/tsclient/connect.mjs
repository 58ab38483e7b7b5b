// connect.mjs connects the TypeScript SDK's MCP client to a Taskwire MCP
// endpoint the way a desktop assistant does: with no token at all, it
// follows the 401 to the server's metadata, registers itself (RFC 7591),
// and asks for authorization in a browser; the Go test that runs it reads
// the authorization URL from its output and clicks the consent. Then it
// lists the tools and calls whoami, and with --refresh-after N calls it
// again N seconds after the access token expired (the server's leeway for
// clocks), which the client does through a refresh when the server
// answers 401.
//
//   node connect.mjs <endpoint> [--refresh-after <seconds>]
//
// Each line of output is one JSON object: {"authorize": url},
// {"tools": [...]}, {"whoami": {...}}, {"tokens": n} (how many token sets
// the client saved), {"error": "..."}.
import http from 'node:http';
import { once } from 'node:events';

import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';

const [endpoint, ...flags] = process.argv.slice(2);
const i = flags.indexOf('--refresh-after');
const refreshAfter = i < 0 ? undefined : Number(flags[i + 1]);

function say(obj) {
    process.stdout.write(JSON.stringify(obj) + '\n');
}

// callback is the client's loopback redirect target (RFC 8252): it hands
// the authorization response to the flow waiting for it.
const callback = http.createServer();
callback.listen(0, '127.0.0.1');
await once(callback, 'listening');
const redirectUrl = `http://127.0.0.1:${callback.address().port}/callback`;
const authorized = new Promise(resolve => {
    callback.on('request', (req, res) => {
        const u = new URL(req.url, redirectUrl);
        if (u.pathname !== '/callback') {
            res.writeHead(404).end();
            return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
        resolve(u.searchParams);
    });
});

// provider keeps everything in memory, as a short-lived client may.
let client_info, tokens, verifier, expiresAt = 0, saved = 0;
const provider = {
    get redirectUrl() { return redirectUrl; },
    get clientMetadata() {
        return {
            client_name: 'Taskwire TS test client',
            redirect_uris: [redirectUrl],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none',
        };
    },
    clientInformation: () => client_info,
    saveClientInformation: info => { client_info = info; },
    tokens: () => tokens,
    saveTokens: t => {
        tokens = t;
        saved++;
        expiresAt = Date.now() + (t.expires_in ?? 0) * 1000;
    },
    redirectToAuthorization: url => say({ authorize: url.href }),
    saveCodeVerifier: v => { verifier = v; },
    codeVerifier: () => verifier,
};

async function connect() {
    const client = new Client({ name: 'taskwire-ts-oauth', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider }));
    return client;
}

async function whoami(client) {
    const res = await client.callTool({ name: 'whoami', arguments: {} });
    if (res.isError) throw new Error('whoami failed: ' + JSON.stringify(res.content));
    say({ whoami: res.structuredContent });
}

try {
    let client;
    try {
        client = await connect();
    } catch (e) {
        if (!(e instanceof UnauthorizedError)) throw e;
        const params = await authorized;
        const transport = new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider });
        await transport.finishAuth(params);
        client = await connect();
    }
    const { tools } = await client.listTools();
    say({ tools: tools.map(t => t.name) });
    await whoami(client);
    if (refreshAfter !== undefined) {
        // Wait out the access token; the next call refreshes it.
        await new Promise(r => setTimeout(r, Math.max(0, expiresAt - Date.now()) + refreshAfter * 1000));
        await whoami(client);
    }
    say({ tokens: saved });
    await client.close();
} catch (e) {
    say({ error: String(e?.stack ?? e) });
    process.exitCode = 1;
} finally {
    callback.close();
}
