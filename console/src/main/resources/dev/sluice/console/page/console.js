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

// The operations token: typed into the form, or given once as #token=... (then taken out of the address).
const TOKEN_KEY = 'sluice-console-token';
if (location.hash.startsWith('#token=')) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(location.hash.substring('#token='.length)));
    history.replaceState(null, '', location.pathname + location.search);
}
document.getElementById('login-form').addEventListener('submit', event => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, document.getElementById('token').value);
    refresh();
});

const OUTCOMES = [
    { field: 'allowed', css: 'allowed', label: 'allowed' },
    { field: 'delayed', css: 'delayed', label: 'delayed' },
    { field: 'rejected', css: 'rejected', label: 'rejected' },
    { field: 'shadowRejected', css: 'shadow-rejected', label: 'would reject' },
];
const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 600;
const HEIGHT = 100;
const AXIS = 12;

function svg(name, attributes) {
    const element = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) {
        element.setAttribute(key, String(value));
    }
    return element;
}

function element(name, className, text) {
    const made = document.createElement(name);
    if (className) {
        made.className = className;
    }
    if (text !== undefined) {
        made.textContent = text;
    }
    return made;
}

function sum(values) {
    return values.reduce((total, value) => total + value, 0);
}

function chart(rule, intervalSeconds) {
    const series = rule.series;
    const slots = series.allowed.length;
    const width = WIDTH / slots;
    const totals = series.allowed.map((_, i) => sum(OUTCOMES.map(outcome => series[outcome.field][i])));
    const scale = (HEIGHT - 4) / Math.max(1, ...totals);
    const drawing = svg('svg', { class: 'chart', viewBox: `0 0 ${WIDTH} ${HEIGHT + AXIS}`,
        preserveAspectRatio: 'none', role: 'img', 'aria-label': `decisions of rule ${rule.id}` });
    for (let i = 0; i < slots; i++) {
        let y = HEIGHT;
        for (const outcome of OUTCOMES) {
            const count = series[outcome.field][i];
            if (count === 0) {
                continue;
            }
            const height = count * scale;
            y -= height;
            const bar = svg('rect', { class: `bar ${outcome.css}`, x: i * width, y, width: Math.max(1, width - 1),
                height, 'data-count': count });
            const title = svg('title', {});
            title.textContent = `${count} ${outcome.label} per ${intervalSeconds} s, `
                + `${(slots - 1 - i) * intervalSeconds} s ago`;
            bar.appendChild(title);
            drawing.appendChild(bar);
        }
    }
    drawing.appendChild(svg('line', { x1: 0, y1: HEIGHT, x2: WIDTH, y2: HEIGHT, stroke: '#bbb' }));
    const left = svg('text', { x: 2, y: HEIGHT + AXIS - 2 });
    left.textContent = `-${Math.round(slots * intervalSeconds)} s`;
    const right = svg('text', { x: WIDTH - 2, y: HEIGHT + AXIS - 2, 'text-anchor': 'end' });
    right.textContent = 'now';
    drawing.append(left, right);
    return drawing;
}

function card(rule, intervalSeconds) {
    const article = element('article', 'rule');
    article.dataset.rule = rule.id;
    const heading = element('h3', '', rule.id);
    heading.appendChild(element('span', `badge ${rule.mode}`, rule.mode));
    article.appendChild(heading);
    article.appendChild(element('p', 'meta', `limit: ${rule.limit}`));
    article.appendChild(chart(rule, intervalSeconds));
    const parts = OUTCOMES.map(outcome => {
        const total = rule.totals[outcome.field];
        article.dataset[outcome.field] = String(total);
        const last = rule.series[outcome.field][rule.series[outcome.field].length - 1];
        return `${outcome.label} ${total} (${(last / intervalSeconds).toFixed(1)}/s now)`;
    });
    article.appendChild(element('p', 'totals', parts.join(' · ')));
    const keys = rule.keys.map(key => `${key.key}: ${key.limited} limited`);
    article.appendChild(element('p', 'keys', 'most limited keys: ' + (keys.length ? keys.join('; ') : 'none')));
    return article;
}

function time(millis) {
    return new Date(millis).toISOString().substring(11, 19) + ' UTC';
}

function render(view) {
    const intervalSeconds = view.intervalMillis / 1000;
    document.getElementById('login').hidden = true;
    document.getElementById('summary').textContent = `${view.instances.length} instance(s), `
        + `${view.rules.length} rule(s) seen; keys ${view.clearKeys ? 'in clear' : 'masked'}; `
        + `as of ${time(view.generatedAtMillis)}`;
    const drift = document.getElementById('drift');
    drift.hidden = !view.drift;
    drift.dataset.drift = String(view.drift);
    if (view.drift) {
        document.getElementById('drift-detail').textContent = view.instances.filter(i => i.drifted)
            .map(i => `${i.instance} enforces ${i.rulesHash} from ${i.rulesSource}`).join('; ')
            + '; the others enforce ' + view.instances.filter(i => !i.drifted).map(i => i.rulesHash)[0];
    }
    const rows = view.instances.map(instance => {
        const row = element('tr', instance.drifted ? 'drifted' : '');
        row.dataset.instance = instance.instance;
        row.dataset.hash = instance.rulesHash;
        const store = instance.store;
        const failing = store.failedLastMinute + store.timedOutLastMinute + store.shedLastMinute;
        for (const text of [instance.instance, instance.rulesSource, instance.rulesHash,
            time(instance.rulesLoadedAtMillis), store.mode, String(store.membersSeen),
            `${store.failedLastMinute} / ${store.timedOutLastMinute} / ${store.shedLastMinute}`,
            String(store.leasedPermitsHeld)]) {
            row.appendChild(element('td', '', text));
        }
        if (failing > 0) {
            row.children[6].className = 'failing';
        }
        return row;
    });
    document.querySelector('#instances tbody').replaceChildren(...rows);
    document.getElementById('rules').replaceChildren(...view.rules.map(rule => card(rule, intervalSeconds)));
    document.getElementById('no-traffic').hidden = view.rules.length > 0;
    renderOverrides(view.overrides);
    document.body.dataset.renders = String(Number(document.body.dataset.renders || 0) + 1);
    return view.intervalMillis;
}

function authorization(headers) {
    const token = sessionStorage.getItem(TOKEN_KEY);
    return Object.assign(token ? { Authorization: `Bearer ${token}` } : {}, headers);
}

function renderOverrides(overrides) {
    document.getElementById('no-overrides').hidden = overrides.length > 0;
    document.getElementById('overrides').hidden = overrides.length === 0;
    const rows = overrides.map(override => {
        const row = element('tr', override.ruleInForce ? '' : 'drifted');
        row.dataset.rule = override.rule;
        row.dataset.kind = override.kind;
        const what = override.kind === 'limits' ? override.limits.join(' + ') : override.kind;
        for (const text of [override.rule, override.everyKey ? 'every key' : override.key, what, override.reason,
            override.setBy, time(override.setAtMillis), time(override.expiresAtMillis)]) {
            row.appendChild(element('td', '', text));
        }
        const remove = element('button', 'remove', 'remove');
        remove.addEventListener('click', () => removeOverride(override));
        const cell = element('td', '');
        cell.appendChild(remove);
        row.appendChild(cell);
        return row;
    });
    document.querySelector('#overrides tbody').replaceChildren(...rows);
}

async function answer(response) {
    const body = await response.json();
    if (!response.ok) {
        throw new Error(body.detail || `answered ${response.status}`);
    }
    return body;
}

async function removeOverride(override) {
    const by = document.getElementById('override-by').value || 'console';
    const query = `rule=${encodeURIComponent(override.rule)}&by=${encodeURIComponent(by)}`
        + (override.everyKey ? '' : `&key=${encodeURIComponent(override.key)}`);
    const result = document.getElementById('override-result');
    try {
        await answer(await fetch(`overrides?${query}`, { method: 'DELETE', credentials: 'same-origin',
            headers: authorization({}) }));
        result.textContent = `removed the override of ${override.rule}`;
    } catch (error) {
        result.textContent = `not removed: ${error.message}`;
    }
    await refresh();
}

document.getElementById('override-form').addEventListener('submit', async event => {
    event.preventDefault();
    const value = id => document.getElementById(id).value;
    const kind = value('override-kind');
    const request = { rule: value('override-rule'), key: value('override-key'), kind,
        limits: kind === 'limits' ? [{ permits: Number(value('override-permits')),
            periodSeconds: Number(value('override-period')) }] : [],
        lastingSeconds: Number(value('override-minutes')) * 60, reason: value('override-reason'),
        setBy: value('override-by') };
    const result = document.getElementById('override-result');
    try {
        const set = await answer(await fetch('overrides', { method: 'POST', credentials: 'same-origin',
            headers: authorization({ 'Content-Type': 'application/json' }), body: JSON.stringify(request) }));
        result.textContent = `set: ${set.rule} ${set.everyKey ? 'every key' : set.key} until `
            + time(set.expiresAtMillis);
    } catch (error) {
        result.textContent = `not set: ${error.message}`;
    }
    await refresh();
});

async function refresh() {
    const response = await fetch('cluster', { credentials: 'same-origin', headers: authorization({}) });
    if (response.status === 401 || response.status === 403) {
        document.getElementById('login').hidden = false;
        document.getElementById('summary').textContent = 'The console needs the operations token.';
        return 5000;
    }
    if (!response.ok) {
        throw new Error(`console/cluster answered ${response.status}`);
    }
    return render(await response.json());
}

async function loop() {
    let wait = 2000;
    try {
        wait = Math.max(1000, await refresh());
    } catch (error) {
        reportError(String(error));
    }
    setTimeout(loop, wait);
}
loop();
