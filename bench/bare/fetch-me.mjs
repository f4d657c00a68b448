// Baseline for `svc me`: the least a Node script can do to fetch /me and print it.
const response = await fetch(`${process.env.SVC_BASE_URL}/me`, { headers: { authorization: `Bearer ${process.env.SVC_API_KEY}` } });
process.stdout.write(`${JSON.stringify(await response.json())}\n`);
