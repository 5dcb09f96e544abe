// Sorting and filtering for the report's tables; no libraries. Sets data-ready on <body> when
// done and data-js-error on any uncaught error, so a headless browser test can tell.
(function () {
  "use strict";
  window.addEventListener("error", function (ev) {
    document.body.setAttribute("data-js-error", String(ev.message || "error"));
  });
  function key(cell) {
    var v = cell.getAttribute("data-v");
    if (v !== null) return v === "" ? null : Number(v);
    return cell.textContent.trim().toLowerCase();
  }
  function compare(a, b) {
    if (a === b) return 0;
    if (a === null) return 1;
    if (b === null) return -1;
    if (typeof a === "number" && typeof b === "number") return a - b;
    return String(a) < String(b) ? -1 : 1;
  }
  function sortBy(table, index, th) {
    var body = table.tBodies[0];
    var asc = th.getAttribute("aria-sort") !== "ascending";
    var rows = Array.prototype.slice.call(body.rows).map(function (row, i) {
      return { row: row, key: key(row.cells[index]), i: i };
    });
    rows.sort(function (x, y) {
      var nulls = (x.key === null) - (y.key === null);
      if (nulls !== 0) return nulls;
      var c = compare(x.key, y.key);
      return (asc ? c : -c) || x.i - y.i;
    });
    Array.prototype.forEach.call(th.parentNode.cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var frag = document.createDocumentFragment();
    rows.forEach(function (r) { frag.appendChild(r.row); });
    body.appendChild(frag);
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    if (!table.tHead) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      th.title = "click to sort";
      th.addEventListener("click", function () { sortBy(table, index, th); });
    });
  });
  function count(table) {
    var out = document.querySelector('[data-count-for="' + table.id + '"]');
    if (!out) return;
    var rows = table.tBodies[0].rows, shown = 0;
    for (var i = 0; i < rows.length; i++) if (!rows[i].hidden) shown++;
    out.textContent = shown + " of " + rows.length + " rows";
  }
  Array.prototype.forEach.call(document.querySelectorAll("input[data-filter]"), function (input) {
    var table = document.getElementById(input.getAttribute("data-filter"));
    if (!table) return;
    input.addEventListener("input", function () {
      var q = input.value.trim().toLowerCase();
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        row.hidden = q !== "" && row.textContent.toLowerCase().indexOf(q) < 0;
      });
      count(table);
    });
    count(table);
  });
  // A link to a collapsed card opens it.
  function openTarget() {
    var el = location.hash && document.getElementById(location.hash.slice(1));
    if (el && el.tagName === "DETAILS") el.open = true;
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
  document.body.setAttribute("data-svg-count", String(document.querySelectorAll("svg").length));
  document.body.setAttribute("data-ready", "1");
})();
