'use strict';

// Errors end up in the page (#errors, data-count), so a headless browser's DOM dump shows them too.
const errorList = document.getElementById('errors');
function reportError(message) {
    const item = document.createElement('li');
    item.textContent = message;
    errorList.appendChild(item);
    errorList.dataset.count = String(errorList.children.length);
    document.getElementById('errors-section').hidden = false;
}
window.addEventListener('error', event => reportError(event.message));
window.addEventListener('unhandledrejection', event => reportError('unhandled rejection: ' + event.reason));
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
    { label: 'POST /api/limits/nightly-export/increment: the limiter service, 3 per 10 s', method: 'POST',
      path: '/api/limits/nightly-export/increment' },
    { label: 'POST /api/limits/nightly-export/acquire: the next free slot within 10 s', method: 'POST',
      path: '/api/limits/nightly-export/acquire?maxWaitMs=10000' },
];

const OUTCOMES = [
    { field: 'allowed', css: 'allowed', label: 'allowed' },
    { field: 'delayed', css: 'delayed', label: 'delayed' },
    { field: 'rejected', css: 'rejected', label: 'rejected' },
    { field: 'shadowRejected', css: 'shadow-rejected', label: 'would reject' },
];

const SVG = 'http://www.w3.org/2000/svg';
const CHART_WIDTH = 600;
const CHART_HEIGHT = 100;
const AXIS_HEIGHT = 12;
const REFRESH_MS = 2000;

function svgElement(name, attributes) {
    const element = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) {
        element.setAttribute(key, String(value));
    }
    return element;
}

function sum(values) {
    return values.reduce((total, value) => total + value, 0);
}

function chart(rule, bucketSeconds) {
    const series = rule.series;
    const buckets = series.allowed.length;
    const barWidth = CHART_WIDTH / buckets;
    const totals = series.allowed.map((_, i) => sum(OUTCOMES.map(outcome => series[outcome.field][i])));
    const scale = (CHART_HEIGHT - 4) / Math.max(1, ...totals);
    const svg = svgElement('svg', { class: 'chart', viewBox: `0 0 ${CHART_WIDTH} ${CHART_HEIGHT + AXIS_HEIGHT}`,
        preserveAspectRatio: 'none', role: 'img', 'aria-label': `decisions of rule ${rule.id}` });
    for (let i = 0; i < buckets; i++) {
        let y = CHART_HEIGHT;
        const secondsAgo = (buckets - 1 - i) * bucketSeconds;
        for (const outcome of OUTCOMES) {
            const count = series[outcome.field][i];
            if (count === 0) {
                continue;
            }
            const height = count * scale;
            y -= height;
            const bar = svgElement('rect', { class: `bar ${outcome.css}`, x: i * barWidth, y,
                width: Math.max(1, barWidth - 1), height, 'data-count': count });
            const title = svgElement('title', {});
            title.textContent = `${count} ${outcome.label}, ${secondsAgo} s ago`;
            bar.appendChild(title);
            svg.appendChild(bar);
        }
    }
    svg.appendChild(svgElement('line', { x1: 0, y1: CHART_HEIGHT, x2: CHART_WIDTH, y2: CHART_HEIGHT,
        stroke: '#bbb' }));
    const left = svgElement('text', { x: 2, y: CHART_HEIGHT + AXIS_HEIGHT - 2 });
    left.textContent = `-${Math.round(buckets * bucketSeconds)} s`;
    const right = svgElement('text', { x: CHART_WIDTH - 2, y: CHART_HEIGHT + AXIS_HEIGHT - 2, 'text-anchor': 'end' });
    right.textContent = 'now';
    svg.append(left, right);
    return svg;
}

function paragraph(className, text) {
    const element = document.createElement('p');
    element.className = className;
    element.textContent = text;
    return element;
}

function card(rule, bucketSeconds) {
    const element = document.createElement('article');
    element.className = 'rule';
    element.dataset.rule = rule.id;
    const heading = document.createElement('h3');
    heading.textContent = rule.id;
    const badge = document.createElement('span');
    badge.className = `badge ${rule.mode}`;
    badge.textContent = rule.mode;
    heading.appendChild(badge);
    element.appendChild(heading);
    element.appendChild(paragraph('meta', `limit: ${rule.limit}`));
    element.appendChild(chart(rule, bucketSeconds));
    const totals = OUTCOMES.map(outcome => {
        const total = rule.totals[outcome.field];
        element.dataset[outcome.field] = String(total);
        return `${outcome.label} ${total}`;
    });
    element.appendChild(paragraph('totals', totals.join(' · ')));
    const keys = rule.keys.map(key => `${key.key}: ${key.limited} over`);
    element.appendChild(paragraph('keys', 'most limited keys ' + (keys.length ? keys.join('; ') : 'none')));
    return element;
}

function renderStore(store) {
    const line = document.getElementById('store');
    line.dataset.mode = store.mode;
    line.dataset.members = String(store.membersSeen);
    line.dataset.failing = String(store.failedLastMinute + store.timedOutLastMinute + store.shedLastMinute);
    const failing = Number(line.dataset.failing);
    line.className = failing > 0 ? 'failing' : '';
    line.textContent = `Counter store: ${store.mode}, ${store.membersSeen} cluster member(s) seen; last minute: `
        + `${store.failedLastMinute} failed, ${store.timedOutLastMinute} timed out, ${store.shedLastMinute} shed`
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
    const delays = await Promise.all(serviceLimits.map(limit => limit.perKey ? null
        : getJson(`/api/limits/${encodeURIComponent(limit.id)}/delay`)));
    const body = document.querySelector('#service-limits tbody');
    body.replaceChildren();
    serviceLimits.forEach((limit, index) => {
        const row = document.createElement('tr');
        row.dataset.id = limit.id;
        cell(row, limit.id);
        cell(row, limit.limits.map(l => `${l.permits} per ${l.periodMs / 1000} s`).join(' and ')
            + (limit.perKey ? ', per key' : ''));
        cell(row, limit.algorithm);
        const delay = delays[index];
        if (delay === null) {
            cell(row, 'per key', 'muted');
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
