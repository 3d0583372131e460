/* plotly.js's own texts in Simplified Chinese: the "zh-CN" locale, registered with Plotly.
 *
 * The installed plotly package ships plotly.min.js but none of plotly.js's locale files, so the
 * locale is registered here, from this site's static files like the bundle itself (no CDN). The
 * keys are the English strings of the bundled plotly.min.js (its modebar tooltips, notifications,
 * editable-title placeholders and hover labels); plotly.js falls back to English for any other.
 * The format gives the date axes Chinese month and day names (2026年3月, 3月5日) and the number
 * format of Chinese platforms' prices (¥28,000.00). charts.js picks `locale: "zh-CN"` when the
 * page is in Chinese. Load after plotly.min.js, before charts.js (all three `defer`).
 */
(function () {
  "use strict";

  if (typeof Plotly === "undefined") {
    return;
  }

  Plotly.register({
    moduleType: "locale",
    name: "zh-CN",
    dictionary: {
      // Modebar buttons.
      "Autoscale": "自动缩放",
      "Box Select": "框选",
      "Compare data on hover": "悬停时比较数据",
      "Download plot": "下载图表",
      "Download plot as a PNG": "下载图表（PNG）",
      "Download plot as a png": "下载图表（PNG）",
      "Download plot as JSON": "下载图表（JSON）",
      "Draw circle": "画圆",
      "Draw closed freeform": "画封闭自由图形",
      "Draw line": "画直线",
      "Draw open freeform": "画开放自由曲线",
      "Draw rectangle": "画矩形",
      "Erase active shape": "删除选中的图形",
      "Lasso Select": "套索选择",
      "Orbital rotation": "轨道旋转",
      "Pan": "平移",
      "Reset": "重置",
      "Reset axes": "重置坐标轴",
      "Reset camera to default": "镜头恢复默认视角",
      "Reset camera to last save": "镜头恢复上次保存的视角",
      "Reset view": "重置视图",
      "Reset views": "重置视图",
      "Share chart...": "分享图表…",
      "Show closest data on hover": "悬停时显示最近的数据",
      "Toggle Spike Lines": "显示或隐藏辅助线",
      "Toggle show closest data on hover": "切换悬停时显示最近的数据",
      "Turntable rotation": "转盘旋转",
      "Zoom": "缩放",
      "Zoom in": "放大",
      "Zoom out": "缩小",
      "Produced with Plotly.js": "由 Plotly.js 生成",
      // Notifications.
      "Double-click on legend to isolate one trace": "双击图例可只显示这一条曲线",
      "Double-click to zoom back out": "双击恢复缩放",
      "Image download succeeded": "图片下载成功",
      "JSON download succeeded": "JSON 下载成功",
      "Preparing image - this may take a few seconds": "正在生成图片，可能需要几秒钟",
      "Sorry, there was a problem downloading your image!": "抱歉，图片下载失败！",
      "Sorry, there was a problem downloading your JSON file!": "抱歉，JSON 文件下载失败！",
      "Taking snapshot - this may take a few seconds": "正在生成快照，可能需要几秒钟",
      "Snapshot succeeded": "快照生成成功",
      "Sorry, there was a problem downloading your snapshot!": "抱歉，快照下载失败！",
      // The share dialog (the site removes its button; kept for completeness).
      "Cancel": "取消",
      "Share": "分享",
      "Share chart": "分享图表",
      "This chart will be sent to {serverUrl}.": "图表将发送到 {serverUrl}。",
      // Editable titles.
      "Click to enter Colorscale title": "点击输入色标标题",
      "Click to enter Component A title": "点击输入分量 A 标题",
      "Click to enter Component B title": "点击输入分量 B 标题",
      "Click to enter Component C title": "点击输入分量 C 标题",
      "Click to enter Plot subtitle": "点击输入图表副标题",
      "Click to enter Plot title": "点击输入图表标题",
      "Click to enter X axis title": "点击输入 X 轴标题",
      "Click to enter Y axis title": "点击输入 Y 轴标题",
      "Click to enter radial axis title": "点击输入径向轴标题",
      "new text": "新文本",
      "trace": "曲线",
      // Hover labels of statistical and financial traces.
      "close:": "收盘：",
      "high:": "最高：",
      "incoming flow count:": "流入数：",
      "kde:": "核密度：",
      "lat:": "纬度：",
      "lon:": "经度：",
      "low:": "最低：",
      "lower fence:": "下须：",
      "max:": "最大值：",
      "mean ± σ:": "均值 ± σ：",
      "mean:": "均值：",
      "median:": "中位数：",
      "min:": "最小值：",
      "open:": "开盘：",
      "outgoing flow count:": "流出数：",
      "q1:": "下四分位数：",
      "q3:": "上四分位数：",
      "source:": "源：",
      "target:": "目标：",
      "upper fence:": "上须："
    },
    format: {
      days: ["星期日", "星期一", "星期二", "星期三", "星期四", "星期五", "星期六"],
      shortDays: ["周日", "周一", "周二", "周三", "周四", "周五", "周六"],
      months: [
        "一月", "二月", "三月", "四月", "五月", "六月",
        "七月", "八月", "九月", "十月", "十一月", "十二月"
      ],
      shortMonths: [
        "1月", "2月", "3月", "4月", "5月", "6月", "7月", "8月", "9月", "10月", "11月", "12月"
      ],
      periods: ["上午", "下午"],
      dateTime: "%Y年%-m月%-d日 %A %X",
      date: "%Y-%m-%d",
      time: "%H:%M:%S",
      decimal: ".",
      thousands: ",",
      grouping: [3],
      currency: ["¥", ""],
      // Date-axis tick labels: year, month, day-and-month, full date.
      year: "%Y年",
      month: "%Y年%-m月",
      dayMonth: "%-m月%-d日",
      dayMonthYear: "%Y年%-m月%-d日"
    }
  });
})();
