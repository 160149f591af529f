// A recording server on 127.0.0.1 that speaks HTTP/2 without TLS (prior knowledge), as the AWS SDK
// for JavaScript's Bedrock Runtime client does when its endpoint is http://. Python's standard
// library has no HTTP/2 server, so the test runs this one.
//   argv[2]: the JSON text to answer every request with.
//   stdout:  first line {"port"}; then one line per request {"method", "path", "headers", "body"}.
// It stops when its stdin closes.
import http2 from 'node:http2';

const answer = process.argv[2] ?? '{}';
const server = http2.createServer();
server.on('stream', (stream, headers) => {
  const chunks = [];
  stream.on('data', (chunk) => chunks.push(chunk));
  stream.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const { ':method': method, ':path': path, ...rest } = headers;
    process.stdout.write(`${JSON.stringify({ method, path, headers: rest, body })}\n`);
    stream.respond({ ':status': 200, 'content-type': 'application/json' });
    stream.end(answer);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
// Exit once stdout is flushed: a pipe takes large writes asynchronously.
process.stdin.on('end', () => process.stdout.write('', () => process.exit(0)));
process.stdin.resume();
