'use strict';

// The error list, the charts and the rule cards come from the console's cards.js, loaded first (index.html).
const consoleError = console.error.bind(console);
console.error = (...args) => {
    reportError(args.map(String).join(' '));
    consoleError(...args);
};

// The showcased endpoints (see WEB-INF/sluice-rules.json for their rules).
const ENDPOINTS = [
    { label: 'GET /api/hello: 5 per 30 s per client IP (token bucket)', method: 'GET', path: '/api/hello' },
    { label: 'POST /api/login as ada: 5 per minute per user (sliding log)', method: 'POST', path: '/api/login',
      headers: { 'X-Username': 'ada' } },
    { label: 'GET /api/search: costs 2 of 10 per minute (sliding counter)', method: 'GET',
      path: '/api/search?q=sluice' },
    { label: 'GET /api/reports, free plan: 3 per minute per API key (GCRA)', method: 'GET', path: '/api/reports',
      headers: { 'X-Api-Key': 'demo-key' } },
    { label: 'GET /api/reports, X-Plan: premium: 10 per minute', method: 'GET', path: '/api/reports',
      headers: { 'X-Api-Key': 'premium-key', 'X-Plan': 'premium' } },
    { label: 'GET /api/catalog: shadow rule, 3 per minute (never rejects)', method: 'GET', path: '/api/catalog' },
    { label: 'POST /api/orders: queued, 1 per second, 2 waiting at most (leaky bucket)', method: 'POST',
      path: '/api/orders' },
    { label: 'POST /api/completions: a pretend model, 2000 tokens per minute per API key (reserve, then settle)',
      method: 'POST', path: '/api/completions', headers: { 'X-Api-Key': 'demo-key' } },
    // The limiter service takes a POST only with Sluice-Client (or a JSON body), which no page of another site can send.
    { label: 'POST /api/limits/nightly-export/increment: the limiter service, 3 per 10 s', method: 'POST',
      path: '/api/limits/nightly-export/increment', headers: { 'Sluice-Client': 'demo-page' } },
    { label: 'POST /api/limits/nightly-export/acquire: the next free slot within 10 s', method: 'POST',
      path: '/api/limits/nightly-export/acquire?maxWaitMs=10000', headers: { 'Sluice-Client': 'demo-page' } },
];

const REFRESH_MS = 2000;

function renderStore(store) {
    const line = document.getElementById('store');
    line.dataset.mode = store.mode;
    line.dataset.members = String(store.membersSeen);
    line.dataset.failing = String(store.lastMinute.failed + store.lastMinute.timedOut + store.lastMinute.shed);
    const failing = Number(line.dataset.failing);
    line.className = failing > 0 ? 'failing' : '';
    line.textContent = `Counter store: ${store.mode}, ${store.membersSeen} cluster member(s) seen; last minute: `
        + `${store.lastMinute.failed} failed, ${store.lastMinute.timedOut} timed out, ${store.lastMinute.shed} shed`
        + (failing > 0 ? ' (the failure policy decided those requests)' : '');
}

function render(stats) {
    renderStore(stats.store);
    const rules = document.getElementById('rules');
    rules.replaceChildren(...stats.rules.map(rule => card(rule, stats.intervalMillis / 1000)));
    document.getElementById('no-traffic').hidden = stats.rules.length > 0;
    document.body.dataset.renders = String(Number(document.body.dataset.renders || 0) + 1);
}

// Every URL the page fetches is relative to the page, so the demo works under any context path.
function relative(path) {
    return path.replace(/^\//, '');
}

async function refresh() {
    try {
        const response = await fetch(relative('/api/stats'), { cache: 'no-store' });
        if (!response.ok) {
            throw new Error(`GET /api/stats answered ${response.status}`);
        }
        render(await response.json());
    } catch (error) {
        console.error('cannot load the stats:', error.message);
    }
    try {
        await refreshService();
    } catch (error) {
        console.error('cannot load the limiter service:', error.message);
    }
}

// The limiter service's ids, read once; each refresh asks every id without keys when its next request fits.
let serviceLimits = null;

async function getJson(path) {
    const response = await fetch(relative(path), { cache: 'no-store' });
    if (!response.ok) {
        throw new Error(`GET ${path} answered ${response.status}`);
    }
    return response.json();
}

function cell(row, text, css) {
    const td = document.createElement('td');
    td.textContent = text;
    if (css) {
        td.className = css;
    }
    row.appendChild(td);
}

async function refreshService() {
    if (serviceLimits === null) {
        serviceLimits = (await getJson('/api/limits')).limits;
    }
    const delays = await Promise.all(serviceLimits.map(limit => limit.perKey || !limit.limits ? null
        : getJson(`/api/limits/${encodeURIComponent(limit.id)}/delay`)));
    const body = document.querySelector('#service-limits tbody');
    body.replaceChildren();
    serviceLimits.forEach((limit, index) => {
        const row = document.createElement('tr');
        row.dataset.id = limit.id;
        cell(row, limit.id);
        const units = limit.metered ? limit.metered.limits.map(l => ({ ...l, unit: limit.metered.unit })) : [];
        const concurrent = limit.concurrency ? [`${limit.concurrency.permits} at once`] : [];
        cell(row, [...[...(limit.limits || []), ...units]
            .map(l => `${l.permits}${l.unit ? ' ' + l.unit : ''} per ${l.periodMs / 1000} s`), ...concurrent]
            .join(' and ') + (limit.perKey ? ', per key' : ''));
        cell(row, limit.algorithm || 'concurrency');
        const delay = delays[index];
        if (delay === null) {
            cell(row, limit.perKey ? 'per key' : '', 'muted');
            cell(row, '', 'muted');
            cell(row, '', 'muted');
        } else {
            cell(row, String(delay.limit - delay.remaining), 'used');
            cell(row, String(delay.remaining), 'remaining');
            cell(row, delay.delayMs === 0 ? 'now'
                : `in ${(delay.delayMs / 1000).toFixed(2)} s (${new Date(delay.nextAt).toLocaleTimeString()})`,
                'next-free');
        }
        body.appendChild(row);
    });
}

async function fire(endpoint, count, clientIp) {
    const headers = Object.assign({}, endpoint.headers);
    if (clientIp) {
        headers['X-Forwarded-For'] = clientIp;
    }
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: count }, async () => {
        const sent = performance.now();
        const response = await fetch(relative(endpoint.path), { method: endpoint.method, headers, cache: 'no-store' });
        await response.text();
        return { status: response.status, millis: performance.now() - sent };
    }));
    const byStatus = {};
    answers.forEach(answer => { byStatus[answer.status] = (byStatus[answer.status] || 0) + 1; });
    const held = answers.filter(answer => answer.status < 400 && answer.millis > 500).length;
    const summary = Object.entries(byStatus).map(([status, n]) => `${status} × ${n}`).join(' · ');
    const result = document.getElementById('burst-result');
    result.textContent = `${endpoint.method} ${endpoint.path}: ${summary}`
        + (held ? ` (${held} held for their slot)` : '')
        + ` in ${Math.round(performance.now() - started)} ms`;
    result.dataset.statuses = JSON.stringify(byStatus);
}

function setUpBurstForm() {
    const select = document.getElementById('burst-endpoint');
    ENDPOINTS.forEach((endpoint, index) => select.appendChild(new Option(endpoint.label, String(index))));
    document.getElementById('burst-form').addEventListener('submit', async event => {
        event.preventDefault();
        const count = Math.min(200, Math.max(1, Number(document.getElementById('burst-count').value) || 1));
        const clientIp = document.getElementById('burst-ip').value.trim();
        try {
            await fire(ENDPOINTS[Number(select.value)], count, clientIp);
        } catch (error) {
            console.error('the burst failed:', error.message);
        }
        await refresh();
    });
}

async function poll() {
    await refresh();
    setTimeout(poll, REFRESH_MS);
}

setUpBurstForm();
poll();
