/* Draws every Plotly figure on the page.
 *
 * Convention: <div class="chart" data-chart-json="ID"></div> next to {{ figure|json_script:"ID" }},
 * where the figure is {"data": [...], "layout": {...}}. The template passes only the id; the figure
 * is built in Python. The container reserves its height in CSS, so drawing shifts no layout.
 */
(function () {
  "use strict";

  // Plotly's own texts (modebar tooltips, month names on date axes, number format) follow the
  // page's language: the zh-CN locale is registered by plotly-locale-zh-cn.js. The cloud "Share"
  // button is removed (the figures stay on this site); download as PNG stays.
  var lang = (document.documentElement.lang || "").toLowerCase();
  var CONFIG = {
    responsive: true,
    displaylogo: false,
    showSendToCloud: false,
    modeBarButtonsToRemove: ["sendChartToCloud"],
    locale: lang.indexOf("zh") === 0 ? "zh-CN" : "en",
  };

  function draw(el) {
    var source = document.getElementById(el.dataset.chartJson);
    if (!source || typeof Plotly === "undefined") {
      return;
    }
    var fig = JSON.parse(source.textContent);
    Plotly.newPlot(el, fig.data, fig.layout, CONFIG);
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
