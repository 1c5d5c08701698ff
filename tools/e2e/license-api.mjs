// A stand-in for the license service's API, started by tools/e2e/run.sh on the node's address
// (and by tools/kind-e2e/run.sh at the kind network's gateway):
// `GET /api/licenses/<client id>` with HTTP Basic answers one active client with one valid
// license, in the shape the user service reads at login (the documented one; the user service's
// own license tests hold it to every other answer). Settings: HOST, PORT, CLIENT_ID, USERNAME,
// PASSWORD.
import { createServer } from 'node:http';

const { HOST = '127.0.0.1', PORT = '58101', CLIENT_ID, USERNAME, PASSWORD } = process.env;
const expectedAuth = `Basic ${Buffer.from(`${USERNAME}:${PASSWORD}`).toString('base64')}`;
const inAYear = new Date(Date.now() + 365 * 24 * 3600 * 1000).toISOString();

const client = {
  id: CLIENT_ID,
  name: 'E2E',
  company_name: 'Pelita E2E',
  email: 'ops@e2e.pelita.test',
  is_active: true,
  max_user: 100,
  licenses: [{ id: 'e2e-license', license_name: 'Platform', status: true, expired_date: inAYear }],
};

function answer(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

createServer((req, res) => {
  process.stdout.write(`${req.method} ${req.url}\n`);
  if (req.headers.authorization !== expectedAuth) {
    return answer(res, 401, { success: false, message: 'Unauthorized' });
  }
  if (req.method === 'GET' && req.url === `/api/licenses/${CLIENT_ID}`) {
    return answer(res, 200, { success: true, data: client });
  }
  return answer(res, 404, { success: false, message: 'Not found' });
}).listen(Number(PORT), HOST, () => process.stdout.write(`license API on ${HOST}:${PORT}\n`));
