'use strict';

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

function time(millis) {
    return new Date(millis).toISOString().substring(11, 19) + ' UTC';
}

function render(view) {
    const intervalSeconds = view.intervalMillis / 1000;
    document.getElementById('login').hidden = true;
    document.getElementById('summary').textContent = `${view.instances.length} instance(s), `
        + `${view.rules.length} rule(s) seen; keys ${view.clearKeys ? 'in clear' : 'masked'}; `
        + `as of ${time(view.generatedAtMillis)}`;
    document.getElementById('unreachable').hidden = !view.clusterUnreachable;
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
