/* Draws every Plotly figure on the page.
 *
 * Convention: <div class="chart" data-chart-json="ID"></div> next to {{ figure|json_script:"ID" }},
 * where the figure is {"data": [...], "layout": {...}} and, for a chart that can be read two
 * ways, "views": {name: {"y", "text", "title", "type"}} switched by radio buttons
 * <input data-chart-view="CHART ID" value="name">. The template passes only ids; the figure is
 * built in Python. The container reserves its height in CSS and shows a placeholder until the
 * chart is drawn (site.css); on a narrow screen a legend that needs more room makes the chart
 * taller rather than being cut off.
 *
 * Colours follow the page: axis, grid and text colours are read from the page's CSS variables,
 * and under prefers-color-scheme: dark the figure's own colours are swapped for lighter ones
 * (DARK), so the charts are redrawn when the reader's scheme changes.
 */
(function () {
  "use strict";

  // Plotly's own texts (modebar tooltips, month names on date axes, number format) follow the
  // page's language: the zh-CN locale is registered by plotly-locale-zh-cn.js. The mode bar keeps
  // download-as-PNG and the zoom tools; no cloud button (the figures stay on this site).
  var lang = (document.documentElement.lang || "").toLowerCase();
  // The mode bar shows while the pointer is over a chart. Where nothing hovers (a phone) plotly.js
  // shows it always, over the chart's own buttons: there site.css hides it until the chart is
  // tapped (.chart-touched, below) or holds the focus.
  var CONFIG = {
    responsive: true,
    displayModeBar: "hover",
    displaylogo: false,
    showSendToCloud: false,
    showEditInChartStudio: false,
    modeBarButtonsToRemove: ["sendDataToCloud", "editInChartStudio", "select2d", "lasso2d"],
    locale: lang.indexOf("zh") === 0 ? "zh-CN" : "en",
  };
  // The figures' colours (advisor/charts.py, platforms/charts.py) and their dark-scheme twins,
  // each at least 4.5:1 against the dark page background (#14181d).
  var DARK = {
    "#0b5cad": "#7ab8ff",
    "#5b8fd1": "#9cc3f0",
    "#9aa5b1": "#8d98a5",
    "#b3261e": "#ff8a80",
    "#a15c00": "#f0a848",
    "#1b7a3d": "#6fd08c",
    "#8e44ad": "#c9a0dc",
    "#e0a030": "#f0c060",
    "#7f8c8d": "#b0babf",
    "#ffffff": "#14181d",
    "#fff": "#14181d",
  };
  var NARROW = 600; // px: below this, legends stack and long labels wrap
  var scheme = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  var drawn = [];

  function cssVar(name, fallback) {
    var value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
    return value || fallback;
  }

  function recolour(fig) {
    var text = JSON.stringify(fig);
    Object.keys(DARK).forEach(function (light) {
      text = text.split('"' + light + '"').join('"' + DARK[light] + '"');
    });
    return JSON.parse(text);
  }

  // How wide `text` runs, in Latin characters: a CJK character takes about two.
  function width(text) {
    var n = 0;
    for (var i = 0; i < text.length; i++) {
      n += text.charCodeAt(i) > 0x2e80 ? 2 : 1;
    }
    return n;
  }

  // Break `text` into lines at most `max` Latin characters wide, at spaces where it has them,
  // a long word (or Chinese text) anywhere.
  function wrap(text, max) {
    if (!text || width(text) <= max || text.indexOf("<br>") !== -1) {
      return text;
    }
    var pieces = [];
    text.split(" ").forEach(function (word) {
      while (width(word) > max) {
        var cut = 0;
        var w = 0;
        while (cut < word.length && w + width(word[cut]) <= max) {
          w += width(word[cut]);
          cut += 1;
        }
        pieces.push(word.slice(0, Math.max(cut, 1)));
        word = word.slice(Math.max(cut, 1));
      }
      pieces.push(word);
    });
    var lines = [];
    var line = "";
    pieces.forEach(function (piece) {
      var next = line ? line + " " + piece : piece;
      if (width(next) > max && line) {
        lines.push(line);
        line = piece;
      } else {
        line = next;
      }
    });
    lines.push(line);
    return lines.join("<br>");
  }

  function axisTitle(axis, max) {
    if (axis && axis.title && axis.title.text) {
      axis.title.text = wrap(axis.title.text, max);
    }
  }

  function themed(fig, el) {
    var dark = scheme && scheme.matches;
    var out = dark ? recolour(fig) : JSON.parse(JSON.stringify(fig));
    var layout = out.layout || (out.layout = {});
    var fg = cssVar("--fg", "#1d232a");
    var line = cssVar("--line", "#d9dee4");
    var soft = cssVar("--soft", "#f4f6f8");
    layout.paper_bgcolor = "rgba(0,0,0,0)";
    layout.plot_bgcolor = "rgba(0,0,0,0)";
    layout.font = Object.assign({}, layout.font, { color: fg });
    layout.hoverlabel = Object.assign({ bgcolor: soft, bordercolor: line, font: { color: fg } }, layout.hoverlabel);
    ["xaxis", "yaxis"].forEach(function (name) {
      var axis = layout[name] || (layout[name] = {});
      axis.gridcolor = line;
      axis.linecolor = line;
      axis.zerolinecolor = line;
      if (axis.rangeselector) {
        axis.rangeselector.bgcolor = soft;
        axis.rangeselector.activecolor = line;
        axis.rangeselector.font = { color: fg };
      }
      if (axis.rangeslider) {
        axis.rangeslider.bgcolor = soft;
        axis.rangeslider.bordercolor = line;
      }
    });
    // A legend as tall as it needs (Plotly would scroll it, cutting its last entries off);
    // fitLegend makes the chart taller when it must.
    layout.legend = Object.assign({}, layout.legend, { maxheight: 4000 });
    if (el.clientWidth < NARROW) {
      var max = Math.max(16, Math.floor((el.clientWidth - 40) / 7));
      (out.data || []).forEach(function (trace) {
        if (trace.name) {
          trace.name = wrap(trace.name, max);
        }
      });
      layout.legend = Object.assign({}, layout.legend, {
        orientation: "v",
        x: 0,
        xanchor: "left",
        yanchor: "top",
        font: { size: 11 },
      });
      layout.margin = Object.assign({}, layout.margin, { l: 52, r: 8 });
      axisTitle(layout.xaxis, max);
      axisTitle(layout.yaxis, Math.max(16, Math.floor((el.clientHeight || 400) / 9)));
    }
    return out;
  }

  // A legend taller than the room left under the plot is cut off by the chart's box: grow the
  // box until it fits (at most three tries; each lets Plotly's automargin settle).
  function fitLegend(el, tries) {
    var legend = el.querySelector(".legend");
    if (!legend || tries <= 0) {
      return;
    }
    var box = el.getBoundingClientRect();
    var need = Math.ceil(legend.getBoundingClientRect().bottom - box.top + 8);
    if (need > box.height + 1) {
      el.style.height = need + "px";
      Plotly.relayout(el, { height: need }).then(function () {
        fitLegend(el, tries - 1);
      });
    }
  }

  function source(el) {
    var script = document.getElementById(el.dataset.chartJson);
    return script ? JSON.parse(script.textContent) : null;
  }

  function draw(el) {
    var fig = source(el);
    if (!fig || typeof Plotly === "undefined") {
      return;
    }
    var view = el.dataset.view;
    if (view && fig.views && fig.views[view]) {
      applyView(fig, fig.views[view]);
    }
    var shown = themed(fig, el);
    Plotly.react(el, shown.data, shown.layout, CONFIG).then(function () {
      el.classList.add("chart-drawn");
      fitLegend(el, 3);
    });
    if (drawn.indexOf(el) === -1) {
      drawn.push(el);
      // Captured: plotly.js's drag layer stops the events it handles from bubbling.
      ["pointerdown", "touchstart"].forEach(function (type) {
        el.addEventListener(type, function () {
          el.classList.add("chart-touched");
        }, { capture: true, passive: true });
      });
    }
  }

  function applyView(fig, view) {
    fig.data.forEach(function (trace, i) {
      trace.y = view.y[i];
      trace.text = view.text[i];
    });
    fig.layout.yaxis = Object.assign({}, fig.layout.yaxis, {
      title: { text: view.title },
      type: view.type,
    });
  }

  function switchView(input) {
    var el = document.getElementById(input.dataset.chartView);
    if (!el) {
      return;
    }
    el.dataset.view = input.value;
    draw(el);
  }

  function drawAll() {
    document.querySelectorAll("[data-chart-json]").forEach(draw);
    document.querySelectorAll("input[data-chart-view]").forEach(function (input) {
      input.closest("fieldset").hidden = false;
      input.addEventListener("change", function () {
        if (input.checked) {
          switchView(input);
        }
      });
    });
    if (scheme) {
      var redraw = function () { drawn.forEach(draw); };
      if (scheme.addEventListener) {
        scheme.addEventListener("change", redraw);
      } else if (scheme.addListener) {
        scheme.addListener(redraw);
      }
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
