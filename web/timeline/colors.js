// Colors: one per slice name, the same in every trace and every session (a hash of the name picks
// the hue), in a light and a dark theme. Runs of merged slices use a lighter shade of the color of
// their first slice.

export const THEMES = {
  light: {
    bg: '#ffffff',
    laneAlt: '#f7f8fa',
    group: '#eef1f6',
    groupInk: '#1d2330',
    ink: '#1d2330',
    muted: '#667085',
    grid: 'rgba(29,35,48,0.08)',
    ruler: '#f5f6f8',
    step: 'rgba(47,91,211,0.06)',
    stepInk: '#35608f',
    sliceInk: '#111111',
    hatch: 'rgba(0, 0, 0, 0.22)',
    select: '#111111',
    link: '#c4320a',
    hit: '#e8a400',
    highlight: '#0b8a5a',
    area: 'rgba(47,91,211,0.16)',
    areaLine: '#2f5bd3',
    mark: 'rgba(161,92,0,0.12)',
    markLine: '#a15c00',
    counter: '#2f5bd3',
    instant: '#7a4fd0',
    sat: 52,
    light: 68,
    busyLight: 82,
  },
  dark: {
    bg: '#15181e',
    laneAlt: '#1a1e25',
    group: '#232833',
    groupInk: '#e6e9ef',
    ink: '#e6e9ef',
    muted: '#98a2b3',
    grid: 'rgba(230,233,239,0.08)',
    ruler: '#1d2129',
    step: 'rgba(120,160,255,0.07)',
    stepInk: '#9db7f5',
    sliceInk: '#0d0f13',
    hatch: 'rgba(0, 0, 0, 0.3)',
    select: '#ffffff',
    link: '#ff8a65',
    hit: '#ffc940',
    highlight: '#3ddc97',
    area: 'rgba(120,160,255,0.18)',
    areaLine: '#8fb0ff',
    mark: 'rgba(255,180,80,0.12)',
    markLine: '#ffb450',
    counter: '#8fb0ff',
    instant: '#c3a6ff',
    sat: 45,
    light: 62,
    busyLight: 40,
  },
};

// FNV-1a over the UTF-16 code units: fast and stable.
export function hashName(name) {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const HUES = 48; // colors are batched per hue when drawing: a bounded number of fillStyle changes

export function hueIndex(name) {
  return hashName(name) % HUES;
}

export function palette(theme) {
  const t = THEMES[theme] || THEMES.light;
  const solid = [];
  const busy = [];
  for (let i = 0; i < HUES; i++) {
    const hue = Math.round((i * 360) / HUES);
    // Alternate the lightness a little so neighbouring hues stay apart.
    const l = t.light + (i % 3) * 4 - 4;
    solid.push(`hsl(${hue} ${t.sat}% ${l}%)`);
    busy.push(`hsl(${hue} ${t.sat - 10}% ${t.busyLight}%)`);
  }
  return { solid, busy, hues: HUES };
}
