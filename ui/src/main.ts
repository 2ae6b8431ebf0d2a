import { mount } from 'svelte';
import App from './App.svelte';
import { ready } from './i18n/index.svelte';
import './app.css';

// The first screen's words are loaded before it is drawn.
ready().then(() => mount(App, { target: document.getElementById('app')! }));
