/* Draws every Plotly figure on the page.
 *
 * Convention: <div class="chart" data-chart-json="ID"></div> next to {{ figure|json_script:"ID" }},
 * where the figure is {"data": [...], "layout": {...}}. The template passes only the id; the figure
 * is built in Python. The container reserves its height in CSS, so drawing shifts no layout.
 */
(function () {
  "use strict";

  function draw(el) {
    var source = document.getElementById(el.dataset.chartJson);
    if (!source || typeof Plotly === "undefined") {
      return;
    }
    var fig = JSON.parse(source.textContent);
    Plotly.newPlot(el, fig.data, fig.layout, { responsive: true, displaylogo: false });
  }

  function drawAll() {
    document.querySelectorAll("[data-chart-json]").forEach(draw);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
