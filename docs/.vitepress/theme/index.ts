import DefaultTheme from "vitepress/theme";
import type { Theme } from "vitepress";
import ChapterFiles from "./ChapterFiles.vue";
import "./custom.css";

export default {
  extends: DefaultTheme,
  enhanceApp({ app }) {
    app.component("ChapterFiles", ChapterFiles);
  },
} satisfies Theme;
