// Bundles the page's script (page/app.jsx, with React and the AI SDK's client from
// node_modules) into page/dist/app.js, which the example server serves.
import { build } from 'esbuild';

await build({
  entryPoints: ['page/app.jsx'],
  outfile: 'page/dist/app.js',
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'info',
});
