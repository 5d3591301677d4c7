// The sharding dashboard: reads the sharding actuator endpoint (GET only) every refresh interval and draws the
// members, a grid of every type's shards coloured by owner, the entity counts, the handoffs in progress and the recent
// rebalances. Text from the endpoint is only ever set as text, never as markup.
'use strict';

(function () {
  /** How long a cell stays outlined after its shard moved. */
  const MOVED_MILLIS = 4000;

  /** The grid has this many cells a row; its length is rounded up to whole rows. */
  const ROW = 20;

  const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#b07aa1', '#edc948', '#ff9da7',
    '#9c755f', '#2f4b7c', '#7a5195', '#bc5090'];

  const page = {
    config: null,
    /** Member name to colour, given in order of first sight so that a member keeps its colour when others leave. */
    colours: new Map(),
    /** Per type: the cells, the owner of each shard at the last reading, when each shard last moved. */
    grids: new Map(),
  };

  function byId(id) {
    return document.getElementById(id);
  }

  /** A new element with a class and text, or child elements. */
  function element(tag, className, ...content) {
    const e = document.createElement(tag);
    if (className) {
      e.className = className;
    }
    for (const c of content) {
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  function colour(member) {
    if (!page.colours.has(member)) {
      page.colours.set(member, PALETTE[page.colours.size % PALETTE.length]);
    }
    return page.colours.get(member);
  }

  function plural(n, one, many) {
    return n + ' ' + (n === 1 ? one : many);
  }

  function showProblem(text) {
    const problem = byId('problem');
    problem.textContent = text;
    problem.hidden = false;
    document.body.dataset.state = 'error';
  }

  function clearProblem() {
    byId('problem').hidden = true;
    document.body.dataset.state = 'ok';
  }

  /** What went wrong reading the endpoint, and what to do about it. */
  function describe(failure) {
    const endpoint = page.config.endpoint;
    const status = failure.status;
    if (status === 404) {
      return 'The sharding endpoint is not found at ' + endpoint + ' (HTTP 404): expose it with '
        + 'management.endpoints.web.exposure.include=health,sharding.';
    }
    if (status === 401 || status === 403) {
      return 'The sharding endpoint refused this page (HTTP ' + status + '): sign in, or grant read access to '
        + endpoint + '.';
    }
    if (status) {
      return 'The sharding endpoint failed (HTTP ' + status + '); see the node\'s log. Retrying.';
    }
    return 'The node serving this page does not answer (it may have stopped); retrying every '
      + (page.config.refreshMillis / 1000) + ' s. The figures below are from the last answer.';
  }

  async function start() {
    try {
      const answer = await fetch('config.json', { cache: 'no-store' });
      if (!answer.ok) {
        throw new Error('HTTP ' + answer.status);
      }
      page.config = await answer.json();
    } catch (e) {
      showProblem('The dashboard could not read its settings (config.json: ' + e.message + '); retrying.');
      setTimeout(start, 5000);
      return;
    }
    if (!page.config.endpoint) {
      showProblem(page.config.problem);
      return;
    }
    byId('endpoint').textContent = 'GET ' + page.config.endpoint;
    poll();
  }

  async function poll() {
    const started = Date.now();
    try {
      const answer = await fetch(page.config.endpoint, {
        headers: { Accept: 'application/json' },
        cache: 'no-store',
        credentials: 'same-origin',
      });
      if (!answer.ok) {
        throw { status: answer.status };
      }
      const cluster = await answer.json();
      render(cluster);
      if (cluster.running) {
        clearProblem();
      } else {
        showProblem('The node serving this page is not running: it is stopping, or has not joined its cluster yet.');
      }
    } catch (e) {
      showProblem(describe(e));
    }
    setTimeout(poll, Math.max(0, page.config.refreshMillis - (Date.now() - started)));
  }

  function render(cluster) {
    const coordinator = cluster.coordinator ? cluster.coordinator.name : null;
    byId('summary').textContent = 'Served by ' + cluster.node.name + ' · coordinator '
      + (coordinator || 'none') + ' · updated ' + new Date().toLocaleTimeString();
    renderMembers(cluster, coordinator);
    renderGrids(cluster);
    renderEntities(cluster);
    renderHandoffs(cluster.handoffs || []);
    renderRebalances(cluster.rebalances || []);
    renderDaemons(cluster.daemonProcesses || []);
  }

  /** Per member: shards, live entities, and whether it answered, over every type. */
  function totals(cluster) {
    const totals = new Map();
    for (const m of cluster.members) {
      totals.set(m.name, { shards: 0, entities: 0, answered: true });
    }
    for (const regions of Object.values(cluster.entityTypes)) {
      for (const r of regions) {
        const t = totals.get(r.member);
        if (t) {
          t.shards += r.shardCount;
          t.entities += r.entityCount;
          t.answered = t.answered && r.answered;
        }
      }
    }
    return totals;
  }

  function renderMembers(cluster, coordinator) {
    const list = byId('members');
    const sums = totals(cluster);
    list.replaceChildren();
    for (const m of cluster.members) {
      const t = sums.get(m.name);
      const swatch = element('span', 'swatch');
      swatch.style.backgroundColor = colour(m.name);
      const name = element('span', 'name', m.name);
      if (m.name === coordinator) {
        name.append(element('span', 'badge coordinator', 'coordinator'));
      }
      if (m.status === 'leaving') {
        name.append(element('span', 'badge leaving', 'leaving'));
      }
      if (m.status === 'refused') {
        name.append(element('span', 'badge refused', 'refused'));
      }
      if (!t.answered) {
        name.append(element('span', 'badge silent', 'did not answer'));
      }
      const item = element('li', 'member', swatch, name,
        element('span', 'figures', plural(t.shards, 'shard', 'shards') + ' · ' + plural(t.entities, 'entity', 'entities')));
      const details = [];
      if (m.refusedReason) {
        details.push('refused: ' + m.refusedReason);
      }
      if (m.roles && m.roles.length) {
        details.push('roles ' + m.roles.join(', '));
      }
      if (m.appVersion) {
        details.push('version ' + m.appVersion);
      }
      if (details.length) {
        item.append(element('span', 'details', details.join(' · ')));
      }
      item.dataset.member = m.name;
      item.dataset.status = m.status;
      item.dataset.shards = String(t.shards);
      item.dataset.entities = String(t.entities);
      item.dataset.coordinator = String(m.name === coordinator);
      list.append(item);
    }
    byId('member-count').textContent = '(' + cluster.members.length + ')';
  }

  function renderGrids(cluster) {
    const container = byId('grids');
    const now = Date.now();
    const moving = new Set(cluster.handoffs || []);
    for (const [type, regions] of Object.entries(cluster.entityTypes)) {
      const owners = new Map();
      const entities = new Map();
      for (const r of regions) {
        for (const [shard, count] of Object.entries(r.shards)) {
          owners.set(Number(shard), r.member);
          entities.set(Number(shard), count);
        }
      }
      const grid = gridOf(container, type, owners, (cluster.numberOfShards || {})[type]);
      let hosted = 0;
      grid.cells.forEach((cell, shard) => {
        const owner = owners.get(shard);
        const before = grid.owners.get(shard);
        if (owner && before && owner !== before) {
          grid.movedAt.set(shard, now);
        }
        const moved = now - (grid.movedAt.get(shard) || 0) < MOVED_MILLIS;
        cell.className = 'cell' + (owner ? '' : ' free') + (moving.has(type + '/' + shard) ? ' moving' : '')
          + (moved && owner ? ' moved' : '');
        cell.style.backgroundColor = owner ? colour(owner) : '';
        cell.dataset.owner = owner || '';
        cell.title = 'Shard ' + shard + ' of ' + type + ': '
          + (owner ? owner + ', ' + plural(entities.get(shard), 'live entity', 'live entities') : 'no home');
        if (owner) {
          hosted++;
        }
      });
      grid.owners = owners;
      grid.count.textContent = plural(hosted, 'shard', 'shards') + ' placed, ids 0 to ' + (grid.cells.length - 1);
    }
  }

  /**
   * The grid of a type, made on first sight: a cell per shard of the type, or, for a type the serving node does not
   * know, enough whole rows for the highest shard id seen.
   */
  function gridOf(container, type, owners, numberOfShards) {
    let grid = page.grids.get(type);
    if (!grid) {
      const count = element('span', 'count');
      const cells = element('div', 'grid');
      cells.dataset.type = type;
      container.append(element('div', 'grid-title', type, count), cells);
      grid = { element: cells, count: count, cells: [], owners: new Map(), movedAt: new Map() };
      page.grids.set(type, grid);
    }
    const highest = Math.max(-1, ...owners.keys());
    const length = numberOfShards
      ? Math.max(numberOfShards, highest + 1)
      : Math.max(ROW, Math.ceil((highest + 1) / ROW) * ROW);
    while (grid.cells.length < length) {
      const cell = element('div', 'cell', grid.cells.length);
      cell.dataset.shard = String(grid.cells.length);
      grid.element.append(cell);
      grid.cells.push(cell);
    }
    return grid;
  }

  function renderEntities(cluster) {
    const body = byId('entities').tBodies[0];
    body.replaceChildren();
    for (const [type, regions] of Object.entries(cluster.entityTypes)) {
      let shards = 0;
      let live = 0;
      let passivated = 0;
      for (const r of regions) {
        body.append(row('', type, r.member + (r.proxyOnly ? ' (routes only)' : ''), r.shardCount, r.entityCount,
          r.passivations));
        shards += r.shardCount;
        live += r.entityCount;
        passivated += r.passivations;
      }
      const total = row('total', type, 'all members', shards, live, passivated);
      total.dataset.type = type;
      total.dataset.entities = String(live);
      body.append(total);
    }
    if (!body.rows.length) {
      body.append(row('', 'No entity type', '', '', '', ''));
    }
  }

  function row(className, ...values) {
    const tr = element('tr', className);
    values.forEach((v, i) => tr.append(element('td', i >= 2 ? 'number' : '', v)));
    return tr;
  }

  function renderHandoffs(handoffs) {
    const list = byId('handoffs');
    list.replaceChildren();
    for (const h of handoffs) {
      list.append(element('li', '', h));
    }
    if (!handoffs.length) {
      list.append(element('li', 'empty', 'None: no shard is moving.'));
    }
    byId('handoff-count').textContent = '(' + handoffs.length + ')';
  }

  function counts(map) {
    return Object.entries(map).map(([node, n]) => node + ' × ' + n).join(', ');
  }

  function renderRebalances(rebalances) {
    const body = byId('rebalances').tBodies[0];
    body.replaceChildren();
    for (const r of rebalances) {
      const started = new Date(r.startedAt);
      const ago = Math.max(0, Math.round((Date.now() - started.getTime()) / 1000));
      const placed = Object.values(r.to).reduce((a, b) => a + b, 0);
      const to = counts(r.to) + (placed < r.moved ? (placed ? ', ' : '') + (r.moved - placed) + ' still moving' : '');
      const tr = element('tr', '', element('td', '', started.toLocaleTimeString() + ' (' + ago + ' s ago)'),
        element('td', 'number', r.rounds), element('td', 'number', r.moved), element('td', '', counts(r.from)),
        element('td', '', to));
      body.append(tr);
    }
    if (!rebalances.length) {
      const td = element('td', 'empty', 'No rebalance has moved a shard since the coordinator started.');
      td.colSpan = 5;
      body.append(element('tr', '', td));
    }
  }

  /** One row per worker of each daemon process; a projection's slices with how far behind each is. */
  function renderDaemons(daemons) {
    const body = byId('daemons').tBodies[0];
    body.replaceChildren();
    for (const d of daemons) {
      for (const w of d.workers) {
        const what = d.projectionOf ? 'projection of ' + d.projectionOf + ', shards ' + w.firstShard + '–' + w.lastShard
          : 'daemon process';
        let lag = '';
        if (d.projectionOf) {
          lag = w.error ? 'unknown: ' + w.error
            : w.oldestUnhandled ? (w.lagMillis / 1000).toFixed(1) + ' s behind' : 'caught up';
        }
        const tr = element('tr', w.node ? '' : 'stale', element('td', '', d.name + ' #' + w.index),
          element('td', '', what), element('td', '', w.node || 'not running'),
          element('td', 'number', d.projectionOf && w.offset >= 0 ? w.offset : ''), element('td', '', lag));
        body.append(tr);
      }
    }
    if (!daemons.length) {
      const td = element('td', 'empty', 'No sharded daemon process or projection runs in this application.');
      td.colSpan = 5;
      body.append(element('tr', '', td));
    }
  }

  start();
})();
