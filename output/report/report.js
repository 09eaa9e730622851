/*
 * ibscan report: builds the page from the JSON documents in it (written by
 * output/report.c): summary, map pan and zoom, search, node details and
 * findings. The map pans and zooms as soon as the script runs; the
 * documents are inflated and parsed after the first paint (the 8,831-node
 * fabric's take a second or more), the search saying "indexing" meanwhile.
 * Every string from the fabric goes into the page as text (text nodes,
 * setAttribute), never as markup.
 *
 * This file is the page's script as it starts; each part it includes does
 * one job. The build (tools/build/embed.py) puts each part in place of the
 * line that names it, so the page holds one script, and the parts share
 * this function's scope.
 */
(function () {
	'use strict';

	/* What the page can do before its documents are parsed, and what it does once they are. */
	var app = { search: null, select: null, mapClick: function () {}, searchReady: function () {} };
	/* For the browser tier: when the map answered (interactive) and when the rest did (ready), ms from navigation. */
	var report = window.ibscanReport = { interactive: false, ready: false, timing: {} };

	/* include dom.js */
	/* include map.js */
	/* include highlight.js */
	/* include model.js */
	/* include details.js */
	/* include search.js */
	/* include summary.js */
	/* include findings.js */

	/* The toolbar: the search box, then the map's buttons. */
	function buildToolbar() {
		var bar = document.getElementById('toolbar');
		buildSearch(bar);
		if (svg)
			mapButtons(bar);
	}

	buildToolbar();
	/* The map's size is known once everything around it is laid out: the toolbar is. */
	if (svg)
		initMap();
	details.appendChild(el('p', { class: 'placeholder' }, ['Indexing the fabric\u2026']));
	document.getElementById('summary').appendChild(el('h1', null, ['ibscan report']));
	report.interactive = true;
	report.timing.interactive = performance.now();

	/* A task after the next paint: what the page shows first is painted before the data work. */
	function afterPaint(f) {
		requestAnimationFrame(function () {
			setTimeout(f, 0);
		});
	}

	/* The large documents inflated (into texts, model.js), then the rest of the page built from them all. */
	afterPaint(function () {
		var stored = document.querySelectorAll('script[data-encoding="deflate-base64"]');
		Promise.all(Array.prototype.map.call(stored, function (e) {
			return inflate(e).then(function (t) {
				texts[e.id] = t;
			});
		})).then(function () {
			/* Parsed in a task of its own: a wheel or a drag waiting since is handled first. */
			setTimeout(start, 0);
		}, function (err) {
			document.getElementById('summary').textContent = 'The report\'s data could not be read: ' + err;
		});
	});

	/* Once the documents are read: the model indexed, the rest of the page built, the search and the map answering. */
	function start() {
		indexModel();
		buildSummary();
		buildFindings();
		clear(details);
		details.appendChild(el('p', { class: 'placeholder' }, [
			'Click a node on the map, a search result or a finding to see its ports and counters.'
		]));
		if (svg)
			mapTips(tips);
		app.search = search;
		app.select = select;
		app.mapClick = mapClick;
		app.searchReady();
		report.select = select;
		report.search = search;
		report.doc = doc;
		report.ready = true;
		report.timing.ready = performance.now();
	}
}());
