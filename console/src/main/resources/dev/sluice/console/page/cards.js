'use strict';

// The rule cards of the console and of the demo's live page: one per rule, with its chart of the last intervals
// by outcome, its totals (and costs, for a rule in a unit other than requests) and its most limited keys. Loaded
// before the page's own script, which uses these names.

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
    if (rule.overAdmitted > 0) {
        // A synchronised rule's measured error: how far its hits took its keys past the limit, as the owners counted.
        article.dataset.overAdmitted = String(rule.overAdmitted);
        article.appendChild(element('p', 'over-admitted',
            `synchronised: ${rule.overAdmitted} admitted beyond the limit, as the owners counted`));
    }
    for (const cost of rule.costs || []) {
        // A rule in a unit other than requests (tokens, bytes): what its requests reserved, settled and owe.
        const costs = element('p', 'costs', `${cost.unit}: reserved ${cost.reserved} · settled ${cost.settled}`
            + ` · debt ${cost.debt} · in flight ${cost.outstanding}`);
        costs.dataset.unit = cost.unit;
        costs.dataset.settled = String(cost.settled);
        costs.dataset.debt = String(cost.debt);
        article.appendChild(costs);
    }
    const keys = rule.keys.map(key => `${key.key}: ${key.limited} limited`);
    article.appendChild(element('p', 'keys', 'most limited keys: ' + (keys.length ? keys.join('; ') : 'none')));
    return article;
}
