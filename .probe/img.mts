import {writeFileSync} from 'node:fs';
import {generateImages} from '../src/agents/image-studio/generate-images.js';
const imgs = generateImages(8);
imgs.forEach((u,i)=>writeFileSync(`/tmp/img${i}.png`, Buffer.from(u.split(',')[1]!, 'base64')));
console.log(imgs[0]!.length);
